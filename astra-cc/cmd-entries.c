/*
 * cmd-entries.c - --list [--json] and --show-entry KEY [--arch CC]
 * [--transcript] [--json]: what the cache holds.
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "astra-cc/cmd-cache.h"
#include "astra-cc/cmd-util.h"
#include "cache/lock.h"
#include "cache/stats.h"
#include "cache/store.h"
#include "lib/arch.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "passes/dispatch.h"

/* ------------------------------------------------------------ entries */

struct found {
	char key[33];
	int cc;
};

struct found_list {
	struct found *v;
	size_t nr, alloc;
	int arch;      /* only this cc, or 0 */
};

static int collect_entry(const char *name, const struct astra_storage_stat *st, void *data)
{
	struct found_list *l = data;
	struct found f;
	(void)st;
	if (astra_cache_parse_name(name, f.key, &f.cc) != 1 || (l->arch && f.cc != l->arch))
		return 0;
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = f;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	int r = strcmp(x->key, y->key);
	return r ? r : x->cc - y->cc;
}

static int parse_arch(const char *s)
{
	struct astra_arch a;
	switch (astra_arch_parse(s, ASTRA_ARCH_ALLOW_BARE, &a)) {
	case ASTRA_ARCH_SM:
	case ASTRA_ARCH_COMPUTE:
	case ASTRA_ARCH_BARE:
		return a.cc;
	default:
		return -1;
	}
}

static void entry_json(struct astra_cache *c, struct astra_json *list, const struct found *f)
{
	struct astra_entry e;
	struct astra_json *m = NULL, *o;
	struct astra_storage_stat st = { 0, 0, 0, 0, 0, 0 };
	const char *why = "";
	char *name = astra_cache_entry_name(f->key, f->cc);
	char *path = astra_cache_local(c)->ops->where(astra_cache_local(c), name);
	int r = astra_cache_peek(c, f->key, f->cc, &e, &m, &st, &why);

	if (r > 0) {
		o = m;
		astra_json_set_str(o, "path", path);
		astra_json_set_num(o, "size", (double)st.size);
		astra_json_set_num(o, "last_used", (double)(st.mtime / 1000000000LL));
		if (e.variant)
			astra_json_set_str(o, "variant_text", e.variant);
		if (e.nr_variants) {
			struct astra_json *vt = astra_json_set_array(o, "variant_texts");
			size_t i;
			for (i = 0; i < e.nr_variants; i++) {
				char *t = xstrndup(e.variants[i].text, e.variants[i].len);
				astra_json_push_str(vt, t);
				free(t);
			}
		}
	} else {
		o = astra_json_new_object();
		astra_json_set_str(o, "key", f->key);
		astra_json_set_num(o, "cc", f->cc);
		astra_json_set_str(o, "path", path);
		astra_json_set_str(o, "error", r < 0 ? why : "vanished");
	}
	astra_json_push(list, o);
	astra_entry_release(&e);
	free(name);
	free(path);
}

/*
 * Where each version runs, and the confirming run's times at every tested
 * shape: for a variant set, the variants, the regions of the launch
 * values each one gets, and per shape every version's median (* marks the
 * one that runs there); for one variant, its times against the original's.
 */
static void show_regions(const struct astra_entry *e)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i, j, w = 0;

	if (!astra_entry_is_dispatch(e)) {
		if (e->verdict != ASTRA_VERDICT_FASTER)
			return;
		astra_cmd_print_row(0, "regions", "one variant for every shape");
		if (!e->nr_timings)
			return;
		for (i = 0; i < e->nr_timings; i++)
			if (strlen(e->timings[i].shape) > w)
				w = strlen(e->timings[i].shape);
		printf("shapes (median us; * runs there):\n");
		for (i = 0; i < e->nr_timings; i++)
			printf("  %-*s  original %.2f   variant %.2f*\n", (int)w, e->timings[i].shape,
			       e->timings[i].baseline_us, e->timings[i].variant_us);
		return;
	}
	{
		struct astra_dispatch d;
		const char *why = "";
		char **names = xcalloc(e->nr_variants + 1, sizeof(char *));
		astra_buf_addf(&b, "%zu, chosen per launch by ", e->nr_variants);
		if (astra_dispatch_from_entry(&d, e, &why) < 0) {
			astra_buf_addf(&b, "nothing usable (%s)", why);
			astra_cmd_print_row(0, "variants", b.buf);
			astra_buf_release(&b);
			free(names);
			return;
		}
		for (j = 0; j < d.nr_params; j++)
			astra_buf_addf(&b, "%s%s", j ? ", " : "", d.params[j]);
		astra_cmd_print_row(0, "variants", b.buf);
		names[0] = xstrdup("the original");
		for (i = 0; i < e->nr_variants; i++) {
			char label[32];
			snprintf(label, sizeof(label), "v%zu", i + 1);
			names[i + 1] = xstrdup(label);
			astra_cmd_print_row(1, label, e->variants[i].origin ? e->variants[i].origin : "?");
		}
		astra_buf_reset(&b);
		astra_dispatch_describe(&d, (const char *const *)names, &b);
		printf("regions:\n%s", b.buf);
		for (i = 0; i < e->nr_points; i++)
			if (strlen(e->points[i].shape) > w)
				w = strlen(e->points[i].shape);
		printf("shapes (median us; * runs there):\n");
		for (i = 0; i < e->nr_points; i++) {
			const struct astra_entry_point *p = &e->points[i];
			printf("  %-*s ", (int)w, p->shape);
			for (j = 0; j <= e->nr_variants; j++)
				printf("  %s %.2f%s", j ? names[j] : "original", p->median_us[j],
				       (int)j == p->choice ? "*" : "");
			printf("\n");
		}
		for (i = 0; i <= e->nr_variants; i++)
			free(names[i]);
		free(names);
		astra_dispatch_release(&d);
	}
	astra_buf_release(&b);
}

static int show_one(struct astra_cache *c, const struct found *f)
{
	struct astra_entry e;
	struct astra_json *m = NULL;
	struct astra_storage_stat st = { 0, 0, 0, 0, 0, 0 };
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *why = "";
	char *name = astra_cache_entry_name(f->key, f->cc);
	char *path = astra_cache_local(c)->ops->where(astra_cache_local(c), name);
	long long now = astra_time();
	int r = astra_cache_peek(c, f->key, f->cc, &e, &m, &st, &why);
	size_t k;

	if (r <= 0) {
		fprintf(stderr, "%s: %s: %s\n", astra_progname, path, r < 0 ? why : "vanished");
		free(name);
		free(path);
		return 1;
	}
	astra_cmd_print_row(0, "entry", path);
	astra_cmd_print_row(0, "key", e.key);
	astra_buf_addf(&b, "sm_%d", e.cc);
	astra_cmd_print_row(0, "arch", b.buf);
	astra_buf_reset(&b);
	astra_buf_adds(&b, e.kernel);
	if (e.file)
		astra_buf_addf(&b, " (%s:%u)", e.file, e.line);
	astra_cmd_print_row(0, "kernel", b.buf);
	astra_cmd_print_row(0, "verdict", astra_verdict_name(e.verdict));
	if (e.reason)
		astra_cmd_print_row(0, "reason", e.reason);
	if (e.verdict == ASTRA_VERDICT_FASTER) {
		astra_buf_reset(&b);
		astra_buf_addf(&b, "%.2fx", e.speedup);
		astra_cmd_print_row(0, "speedup", b.buf);
	}
	astra_buf_reset(&b);
	astra_buf_addf(&b, "%s%s%s%s", e.device ? e.device : "?", e.driver ? " (driver " : "",
		       e.driver ? e.driver : "", e.driver ? ")" : "");
	astra_cmd_print_row(0, "device", b.buf);
	astra_buf_reset(&b);
	astra_buf_addf(&b, "%s%s%s", e.optimizer ? e.optimizer : "?", e.model ? ", model " : "",
		       e.model ? e.model : "");
	astra_cmd_print_row(0, "optimizer", b.buf);
	astra_buf_reset(&b);
	astra_cmd_format_time(&b, e.created);
	astra_buf_adds(&b, " (");
	astra_cmd_format_age(&b, now - e.created);
	astra_buf_adds(&b, " ago)");
	astra_cmd_print_row(0, "created", b.buf);
	astra_buf_reset(&b);
	astra_cmd_format_time(&b, st.mtime / 1000000000LL);
	astra_buf_adds(&b, " (");
	astra_cmd_format_age(&b, now - st.mtime / 1000000000LL);
	astra_buf_adds(&b, " ago)");
	astra_cmd_print_row(0, "last used", b.buf);
	astra_buf_reset(&b);
	astra_buf_addf(&b, "%lld bytes", st.size);
	astra_cmd_print_row(0, "size", b.buf);
	if (astra_cache_lock_held(c, e.key, e.cc) == 1)
		astra_cmd_print_row(0, "lock", "held (an optimization is running)");
	show_regions(&e);
	printf("manifest:\n");
	astra_cmd_print_json(m);
	if (e.variant) {
		astra_buf_reset(&b);
		astra_buf_add_printable(&b, e.variant, 1);
		printf("variant:\n%s", b.buf);
		if (e.variant_len && e.variant[e.variant_len - 1] != '\n')
			printf("\n");
	}
	for (k = 0; k < e.nr_variants; k++) {
		const struct astra_entry_variant *v = &e.variants[k];
		printf("variant v%zu (%s):\n", k + 1, v->origin ? v->origin : "?");
		fwrite(v->text, 1, v->len, stdout);
		if (v->len && v->text[v->len - 1] != '\n')
			printf("\n");
	}
	astra_buf_release(&b);
	astra_json_free(m);
	astra_entry_release(&e);
	free(name);
	free(path);
	return 0;
}

static int is_hex_prefix(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n >= 4 && n <= 32 && !s[n];
}

int astra_cache_cmd_show_entry(int argc, char **argv)
{
	struct astra_cache *c;
	struct found_list l = { NULL, 0, 0, 0 };
	struct astra_storage *s;
	const char *key = NULL;
	int json = 0, transcript = 0, i, ret = 0;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--transcript"))
			transcript = 1;
		else if (!strcmp(argv[i], "--arch") && i + 1 < argc)
			l.arch = parse_arch(argv[++i]);
		else if (astra_starts_with(argv[i], "--arch="))
			l.arch = parse_arch(argv[i] + 7);
		else if (!key && argv[i][0] != '-')
			key = argv[i];
		else
			return astra_cmd_usage_error(argv[0], "%s '%s'", argv[i][0] == '-' ? "unrecognized option" :
						     "unexpected argument", argv[i]);
	}
	if (!key || !is_hex_prefix(key) || l.arch < 0) {
		fprintf(stderr, "usage: %s --show-entry KEY [--arch sm_XX] [--transcript] [--json]\n"
			"(KEY: the entry's key, or at least its first 4 hex digits)\n", astra_progname);
		return 2;
	}
	c = astra_cache_open(NULL);
	s = astra_cache_local(c);
	s->ops->list(s, key, collect_entry, &l);
	if (l.nr)
		qsort(l.v, l.nr, sizeof(*l.v), by_key);
	if (!l.nr) {
		fprintf(stderr, "%s: no cache entry for %s%s in %s\n", astra_progname, key,
			l.arch ? " for that architecture" : "", astra_cache_dir(c));
		free(l.v);
		return astra_cmd_finish(1, c);
	}
	if (strcmp(l.v[0].key, l.v[l.nr - 1].key)) {
		fprintf(stderr, "%s: %s is ambiguous:", astra_progname, key);
		for (k = 0; k < l.nr; k++)
			if (!k || strcmp(l.v[k].key, l.v[k - 1].key))
				fprintf(stderr, " %s", l.v[k].key);
		fprintf(stderr, "\n");
		free(l.v);
		return astra_cmd_finish(1, c);
	}
	if (transcript) {
		struct astra_buf b = ASTRA_BUF_INIT;
		int r;
		if (l.nr > 1) {
			fprintf(stderr, "%s: %s has entries for several architectures: give --arch\n",
				astra_progname, key);
			free(l.v);
			return astra_cmd_finish(1, c);
		}
		r = astra_cache_transcript(c, l.v[0].key, l.v[0].cc, &b);
		if (r > 0) {
			fwrite(b.buf, 1, b.len, stdout);
			if (b.len && b.buf[b.len - 1] != '\n')
				putchar('\n');
		} else {
			fprintf(stderr, "%s: %s sm_%d: %s\n", astra_progname, l.v[0].key, l.v[0].cc,
				r == 0 ? "no transcript stored" : "the transcript is missing or corrupt");
			ret = 1;
		}
		astra_buf_release(&b);
	} else if (json) {
		struct astra_json *j = astra_json_new_object(), *list;
		astra_json_set_str(j, "key", l.v[0].key);
		list = astra_json_set_array(j, "entries");
		for (k = 0; k < l.nr; k++)
			entry_json(c, list, &l.v[k]);
		astra_cmd_print_json(j);
		astra_json_free(j);
	} else {
		for (k = 0; k < l.nr; k++) {
			if (k)
				printf("\n");
			ret |= show_one(c, &l.v[k]);
		}
	}
	free(l.v);
	return astra_cmd_finish(ret, c);
}

struct list_row {
	char key[33];
	int cc;
	char *kernel, *verdict, *speedup, *device;
	long long created, last_used, size;
	double speedup_v;
};

static int by_last_use(const void *a, const void *b)
{
	const struct list_row *x = a, *y = b;
	if (x->last_used != y->last_used)
		return x->last_used > y->last_used ? -1 : 1;
	return strcmp(x->key, y->key) ? strcmp(x->key, y->key) : x->cc - y->cc;
}

int astra_cache_cmd_list(int argc, char **argv)
{
	static const char *const flags[] = { "--json", NULL };
	struct astra_cache *c;
	struct astra_storage *s;
	struct found_list l = { NULL, 0, 0, 0 };
	struct list_row *rows;
	long long now = astra_time();
	size_t i, w_kernel = 6, w_device = 6;

	if (astra_cmd_check_args(argc, argv, flags, 0))
		return 2;
	c = astra_cache_open(NULL);
	s = astra_cache_local(c);

	s->ops->list(s, "", collect_entry, &l);
	rows = xcalloc(l.nr + 1, sizeof(*rows));
	for (i = 0; i < l.nr; i++) {
		struct astra_entry e;
		struct astra_storage_stat st = { 0, 0, 0, 0, 0, 0 };
		const char *why = "";
		struct list_row *r = &rows[i];
		int ok = astra_cache_peek(c, l.v[i].key, l.v[i].cc, &e, NULL, &st, &why);
		memcpy(r->key, l.v[i].key, sizeof(r->key));
		r->cc = l.v[i].cc;
		r->last_used = st.mtime / 1000000000LL;
		r->size = st.size;
		if (ok > 0) {
			r->kernel = xstrdup(e.kernel);
			r->verdict = xstrdup(astra_verdict_name(e.verdict));
			r->speedup_v = e.speedup;
			r->speedup = e.verdict == ASTRA_VERDICT_FASTER ? xasprintf("%.2fx", e.speedup) : xstrdup("-");
			r->device = xstrdup(e.device ? e.device : "?");
			r->created = e.created;
		} else {
			r->kernel = xstrdup("?");
			r->verdict = xstrdup(ok == 0 ? "vanished" : strstr(why, "trust") ? "untrusted" : "corrupt");
			r->speedup = xstrdup("-");
			r->device = xstrdup("?");
			r->created = r->last_used;
		}
		astra_entry_release(&e);
		if (strlen(r->kernel) > w_kernel)
			w_kernel = strlen(r->kernel);
		if (strlen(r->device) > w_device)
			w_device = strlen(r->device);
	}
	if (l.nr)
		qsort(rows, l.nr, sizeof(*rows), by_last_use);
	if (astra_cmd_has_flag(argc, argv, "--json")) {
		struct astra_json *j = astra_json_new_array();
		for (i = 0; i < l.nr; i++) {
			struct astra_json *o = astra_json_new_object();
			char arch[16];
			snprintf(arch, sizeof(arch), "sm_%d", rows[i].cc);
			astra_json_set_str(o, "key", rows[i].key);
			astra_json_set_num(o, "cc", rows[i].cc);
			astra_json_set_str(o, "arch", arch);
			astra_json_set_str(o, "kernel", rows[i].kernel);
			astra_json_set_str(o, "verdict", rows[i].verdict);
			astra_json_set_num(o, "speedup", rows[i].speedup_v);
			astra_json_set_str(o, "device", rows[i].device);
			astra_json_set_num(o, "created", (double)rows[i].created);
			astra_json_set_num(o, "last_used", (double)rows[i].last_used);
			astra_json_set_num(o, "size", (double)rows[i].size);
			astra_json_push(j, o);
		}
		astra_cmd_print_json(j);
		astra_json_free(j);
	} else {
		printf("%-16s %-7s %-*s %-17s %-7s %-*s %5s %8s\n", "KEY", "ARCH", (int)w_kernel, "KERNEL",
		       "VERDICT", "SPEEDUP", (int)w_device, "DEVICE", "AGE", "LAST USE");
		for (i = 0; i < l.nr; i++) {
			struct astra_buf age = ASTRA_BUF_INIT, used = ASTRA_BUF_INIT, kernel = ASTRA_BUF_INIT,
					 device = ASTRA_BUF_INIT;
			char arch[16];
			snprintf(arch, sizeof(arch), "sm_%d", rows[i].cc);
			astra_cmd_format_age(&age, now - rows[i].created);
			astra_cmd_format_age(&used, now - rows[i].last_used);
			/* For a terminal: no control character of a manifest reaches it. */
			astra_buf_add_printable(&kernel, rows[i].kernel, 0);
			astra_buf_add_printable(&device, rows[i].device, 0);
			printf("%-16.16s %-7s %-*s %-17s %-7s %-*s %5s %8s\n", rows[i].key, arch, (int)w_kernel,
			       kernel.buf, rows[i].verdict, rows[i].speedup, (int)w_device, device.buf,
			       age.buf, used.buf);
			astra_buf_release(&age);
			astra_buf_release(&used);
			astra_buf_release(&kernel);
			astra_buf_release(&device);
		}
	}
	for (i = 0; i < l.nr; i++) {
		free(rows[i].kernel);
		free(rows[i].verdict);
		free(rows[i].speedup);
		free(rows[i].device);
	}
	free(rows);
	free(l.v);
	return astra_cmd_finish(0, c);
}
