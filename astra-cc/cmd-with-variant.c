/*
 * withvariant.c - `astra-cc --with-variant` (see withvariant.h).
 *
 * Kept out of substitute.c because it is a command: argument parsing,
 * reading the user's variant files and messages on stderr belong to the
 * command, not to the substitution that the pipeline also uses.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/arch.h"
#include "lib/buf.h"
#include "astra-cc/driver.h"
#include "lib/log.h"
#include "lib/run.h"
#include "front/extract.h"
#include "passes/substitute.h"
#include "astra-cc/cmd-with-variant.h"

struct wv_item {
	char *name;
	char *file;
	struct astra_variant v;
};

static int usage(void)
{
	fprintf(stderr, "usage: %s --with-variant NAME=FILE [--with-variant NAME=FILE...] [--cc 90[,100]] "
		"[--save DIR] -- NVCC ARGS...\n", astra_progname);
	return 2;
}

static int parse_ccs(const char *list, int **ccs, size_t *nr)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	size_t alloc = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct astra_arch a;
		enum astra_arch_kind k = astra_arch_parse(tok, ASTRA_ARCH_ALLOW_BARE, &a);
		if (k != ASTRA_ARCH_SM && k != ASTRA_ARCH_BARE) {
			free(copy);
			return -1;
		}
		ALLOC_GROW(*ccs, *nr + 1, alloc);
		(*ccs)[(*nr)++] = a.cc;
	}
	free(copy);
	return *nr ? 0 : -1;
}

/* The real architectures (sm_XX) of the command, as compute capabilities. */
static int command_ccs(const struct astra_cmdline *cl, int **ccs, size_t *nr)
{
	size_t i, alloc = 0;
	for (i = 0; i < cl->archs.nr; i++) {
		struct astra_arch a;
		enum astra_arch_kind kind = astra_arch_parse(cl->archs.v[i], 0, &a);
		if (kind == ASTRA_ARCH_SPECIAL)
			return -1;
		if (kind == ASTRA_ARCH_SM) {
			int v = a.cc, dup = 0;
			size_t k;
			for (k = 0; k < *nr; k++)
				dup |= (*ccs)[k] == v;
			if (!dup && v) {
				ALLOC_GROW(*ccs, *nr + 1, alloc);
				(*ccs)[(*nr)++] = v;
			}
		}
	}
	return *nr ? 0 : -1;
}

static void item_release(struct wv_item *it)
{
	free(it->name);
	free(it->file);
	astra_variant_release(&it->v);
}

int astra_with_variant(int argc, char **argv)
{
	struct wv_item *items = NULL;
	size_t nr_items = 0, alloc_items = 0, i;
	int *ccs = NULL;
	size_t nr_ccs = 0;
	const char *save_dir = NULL;
	struct astra_invocation inv;
	struct astra_tu tu;
	struct astra_subst *subs = NULL;
	struct astra_subst_opts opts;
	int argi, ret = 2;

	memset(&inv, 0, sizeof(inv));
	memset(&tu, 0, sizeof(tu));
	for (argi = 0; argi < argc; argi++) {
		const char *a = argv[argi];
		if (!strcmp(a, "--")) {
			argi++;
			break;
		}
		if (!strcmp(a, "--with-variant") && argi + 1 < argc) {
			const char *eq = strchr(argv[++argi], '=');
			if (!eq || eq == argv[argi] || !eq[1])
				return usage();
			ALLOC_GROW(items, nr_items + 1, alloc_items);
			memset(&items[nr_items], 0, sizeof(items[0]));
			items[nr_items].name = xstrndup(argv[argi], (size_t)(eq - argv[argi]));
			items[nr_items].file = xstrdup(eq + 1);
			nr_items++;
		} else if (!strcmp(a, "--cc") && argi + 1 < argc) {
			if (parse_ccs(argv[++argi], &ccs, &nr_ccs) < 0) {
				fprintf(stderr, "%s: --cc wants compute capabilities such as 90 or 80,90\n",
					astra_progname);
				goto out;
			}
		} else if (!strcmp(a, "--save") && argi + 1 < argc) {
			save_dir = argv[++argi];
		} else {
			ret = usage();
			goto out;
		}
	}
	if (!nr_items || argi >= argc) {
		ret = usage();
		goto out;
	}

	/* The nvcc command, as the driver would have set it up. */
	inv.nvcc = xstrdup(argv[argi]);
	astra_vec_init(&inv.argv);
	astra_vec_pushv(&inv.argv, argv + argi, (size_t)(argc - argi));
	astra_cmdline_parse(&inv.cl, (int)inv.argv.nr, inv.argv.v);
	if (inv.cl.reason) {
		fprintf(stderr, "%s: --with-variant: nothing to substitute in this command (%s)\n", astra_progname,
			inv.cl.reason);
		goto fallback;
	}
	if (!nr_ccs && command_ccs(&inv.cl, &ccs, &nr_ccs) < 0) {
		fprintf(stderr, "%s: --with-variant: say which architectures to use the variant on (--cc 90)\n",
			astra_progname);
		goto fallback;
	}
	if (astra_extract_tu(&tu, inv.cl.inputs.v[0], &inv.cl) < 0) {
		fprintf(stderr, "%s: --with-variant: cannot parse %s\n", astra_progname, inv.cl.inputs.v[0]);
		goto fallback;
	}

	subs = xcalloc(nr_items, sizeof(*subs));
	for (i = 0; i < nr_items; i++) {
		struct wv_item *it = &items[i];
		struct astra_buf b = ASTRA_BUF_INIT;
		const struct astra_kernel *k = astra_tu_kernel(&tu, it->name);
		if (!k) {
			fprintf(stderr, "%s: --with-variant: no annotated kernel %s in %s\n", astra_progname, it->name,
				tu.path);
			goto fallback;
		}
		if (astra_buf_read_file(&b, it->file, 1 << 24) < 0) {
			fprintf(stderr, "%s: --with-variant: cannot read %s: %s\n", astra_progname, it->file,
				strerror(errno));
			astra_buf_release(&b);
			goto fallback;
		}
		it->v.text = astra_buf_detach(&b, NULL);
		it->v.origin = xasprintf("hand-written %s", astra_basename(it->file));
		if (astra_extract_candidate(k, &it->v, NULL, &b) < 0) {
			fprintf(stderr, "%s: --with-variant: %s is not an acceptable variant of %s:\n%s", astra_progname,
				it->file, it->name, b.buf);
			astra_buf_release(&b);
			goto fallback;
		}
		astra_buf_release(&b);
		subs[i].kernel = k;
		subs[i].variant = &it->v;
		subs[i].ccs = ccs;
		subs[i].nr_ccs = nr_ccs;
	}
	memset(&opts, 0, sizeof(opts));
	opts.save_dir = save_dir;
	ret = astra_subst_compile(&inv, &tu, subs, nr_items, &opts);
	if (ret >= 0)
		goto out;
	fprintf(stderr, "%s: --with-variant: substitution failed (see the log); compiling the original\n",
		astra_progname);
fallback:
	fflush(stderr);
	ret = astra_run(inv.argv.v, NULL);
	if (ret < 0)
		ret = 127;
out:
	for (i = 0; i < nr_items; i++)
		item_release(&items[i]);
	free(items);
	free(subs);
	free(ccs);
	astra_tu_release(&tu);
	free(inv.nvcc);
	astra_vec_clear(&inv.argv);
	astra_cmdline_release(&inv.cl);
	return ret;
}
