/*
 * put-variant.c - store a `faster` cache entry whose variant is a real
 * kernel, as the optimization loop would after verifying it.  The
 * substitution cases (testsuite/cases/subst/) and bench/subst.sh use it to
 * make a real cache hit without a GPU.
 *
 * Usage: put-variant DIR KEY CC KERNEL VARIANT-FILE
 *        put-variant DIR KEY CC KERNEL --set PARAMS VARIANT-FILE... -- POINT...
 *
 * The second form stores a variant set with shape dispatch (format 2):
 * PARAMS names the parameters the choice reads ("t,d"); each POINT is a
 * measured shape, VALUES=CHOICE[:TIMES]: the parameters' values, the
 * version that runs there (0: the original, i: the i-th file) and,
 * optionally, every version's median in microseconds ("2048,14336=1:
 * 114.7/50.5/60.1"; default 20 us, and 10 us for the chosen one).
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "lib/vec.h"
#include "lib/log.h"
#include "cache/manifest.h"
#include "cache/store.h"

/* --set PARAMS FILE... -- POINT...: a variant set (see the usage above). */
static int put_set(struct astra_entry *e, int argc, char **argv)
{
	struct astra_vec params = ASTRA_VEC_INIT;
	int i = 1;
	size_t j;

	if (argc < 1)
		return -1;
	{
		const char *a = argv[0];
		while (*a) {
			size_t n = strcspn(a, ",");
			char *name = xstrndup(a, n);
			astra_vec_push(&params, name);
			free(name);
			a += n + (a[n] == ',');
		}
	}
	for (j = 0; j < params.nr; j++)
		astra_entry_add_param(e, params.v[j]);
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		struct astra_buf t = ASTRA_BUF_INIT;
		char *origin;
		if (astra_buf_read_file(&t, argv[i], 0) < 0) {
			fprintf(stderr, "put-variant: %s: %s\n", argv[i], strerror(errno));
			exit(1);
		}
		origin = xasprintf("test: %s", astra_basename(argv[i]));
		astra_entry_add_variant(e, t.buf, t.len, origin);
		free(origin);
		astra_buf_release(&t);
	}
	for (i++; i < argc; i++) {
		double values[16] = { 0 }, med[16], spr[16] = { 0 };
		struct astra_buf label = ASTRA_BUF_INIT;
		char *p = argv[i], *end;
		int choice;
		for (j = 0; j < params.nr && j < 16; j++) {
			values[j] = strtod(p, &end);
			astra_buf_addf(&label, "%s%s=%.17g", j ? " " : "", params.v[j], values[j]);
			p = end + (*end == ',');
		}
		if (*p != '=') {
			fprintf(stderr, "put-variant: %s: expected VALUES=CHOICE[:TIMES]\n", argv[i]);
			return -1;
		}
		choice = (int)strtol(p + 1, &end, 10);
		for (j = 0; j <= e->nr_variants && j < 16; j++)
			med[j] = (int)j == choice ? 10 : 20;
		for (j = 0, p = end; *p == ':' || *p == '/'; j++) {
			if (j < 16)
				med[j] = strtod(p + 1, &end);
			p = end;
		}
		astra_entry_add_point(e, label.buf, values, choice, med, spr);
		astra_buf_release(&label);
	}
	astra_vec_clear(&params);
	return 0;
}

int main(int argc, char **argv)
{
	struct astra_buf text = ASTRA_BUF_INIT;
	struct astra_cache *c;
	struct astra_entry e;
	int ret;

	if (argc < 6 || (argc != 6 && strcmp(argv[5], "--set"))) {
		fprintf(stderr, "usage: put-variant DIR KEY CC KERNEL VARIANT-FILE\n"
			"       put-variant DIR KEY CC KERNEL --set PARAMS VARIANT-FILE... -- POINT...\n");
		return 2;
	}
	astra_config_load();
	astra_log_open(astra_config_str(ASTRA_CFG_LOG_FILE), astra_config_str(ASTRA_CFG_TRACE));
	astra_entry_init(&e);
	e.key = xstrdup(argv[2]);
	e.cc = atoi(argv[3]);
	e.verdict = ASTRA_VERDICT_FASTER;
	e.kernel = xstrdup(argv[4]);
	e.speedup = 1.5;
	if (argc > 6 && put_set(&e, argc - 6, argv + 6) < 0)
		return 2;
	if (argc == 6) {
		if (astra_buf_read_file(&text, argv[5], 0) < 0) {
			fprintf(stderr, "put-variant: %s: %s\n", argv[5], strerror(errno));
			return 1;
		}
		astra_entry_set_variant(&e, text.buf, text.len);
		e.origin = xasprintf("test: %s", astra_basename(argv[5]));
	}
	e.device = xstrdup("none (stored by put-variant)");
	c = astra_cache_open(argv[1]);
	ret = astra_cache_store(c, &e, NULL, 0);
	astra_cache_close(c);
	astra_entry_release(&e);
	astra_buf_release(&text);
	if (ret < 0)
		fprintf(stderr, "put-variant: the store failed (see the log)\n");
	return ret < 0 ? 1 : 0;
}
