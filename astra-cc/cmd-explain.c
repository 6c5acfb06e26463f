/*
 * cmd-explain.c - `astra-cc --explain FILE.cu [nvcc flags] [--cc XX]`.
 *
 * Reads the file through front/extract.c exactly as a build does, so what
 * it says about a kernel is what the optimization loop sees, and prints
 * rules/explain.c's account of each annotated kernel.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/captured.h"
#include "astra-cc/cmd-explain.h"
#include "cache/store.h"
#include "front/extract.h"
#include "front/includes.h"
#include "front/key.h"
#include "lib/arch.h"
#include "lib/config.h"
#include "lib/locate.h"
#include "lib/nvccopts.h"
#include "lib/util.h"
#include "rules/explain.h"

/* The highest sm_XX the command line compiles for, 0 when unknown. */
static int target_cc(const struct astra_cmdline *cl)
{
	struct astra_vec v = ASTRA_VEC_INIT;
	int cc = 0;
	size_t i;
	if (astra_arch_ccs(cl, &v) == 0)
		for (i = 0; i < v.nr; i++) {
			int n = atoi(v.v[i]);
			if (n > cc)
				cc = n;
		}
	astra_vec_clear(&v);
	return cc;
}

/* What reading the file needs to find a kernel's capture as --warmup does (agents/warmup.c). */
struct capture_ctx {
	char *nvcc;                 /* NULL: no nvcc, no keys, no captures */
	struct astra_buf version;
	struct astra_cache *cache;
};

/*
 * Kernel k as --warmup would test it: completed from its capture when it
 * has one (agents/captured.h).  Returns 1 with *copy to use (release it),
 * 0 when k is explained as it is, -1 when --warmup would leave it alone
 * (said on stdout).
 */
static int captured(struct capture_ctx *cx, const struct astra_tu *tu, const struct astra_cmdline *cl,
		    const struct astra_kernel *k, int cc, struct astra_kernel *copy)
{
	struct astra_captured_info ci;
	struct astra_key key;
	char *arch;
	size_t i;
	int r;

	if (!cx->nvcc || !cc) {
		if (astra_pragma_by_capture(&k->pragma))
			printf("%s:%u: kernel %s: its test comes from a capture, which is read for a target: "
			       "give -arch=sm_XX or --cc XX%s\n", k->file, k->line, k->name,
			       cx->nvcc ? "" : " (and the real nvcc, for the key)");
		return 0;
	}
	arch = xasprintf("sm_%d", cc);
	r = astra_key_compute(tu, k, cl, arch, cx->version.buf, &key, NULL);
	free(arch);
	if (r < 0)
		return 0;
	astra_captured_info_init(&ci);
	r = astra_captured_kernel(cx->cache, key.hex, cc, k, copy, &ci);
	if (r < 0) {
		printf("%s:%u: kernel %s: left alone, as --warmup leaves it: %s\n", k->file, k->line, k->name,
		       ci.missing);
	} else if (r > 0) {
		printf("%s:%u: kernel %s: %zu test shape%s (%zu from the pragma, %zu of %zu captured from %lld "
		       "launch%s in %lld run%s), as --warmup reads them\n", k->file, k->line, k->name, ci.shapes.nr,
		       ci.shapes.nr == 1 ? "" : "s", ci.nr_pragma, ci.nr_used, ci.nr_captured, ci.launches,
		       ci.launches == 1 ? "" : "es", ci.runs, ci.runs == 1 ? "" : "s");
		for (i = 0; i < ci.shapes.nr; i++)
			printf("  shape %s\n", ci.shapes.v[i]);
		for (i = 0; i < ci.notes.nr; i++)
			printf("  note: %s\n", ci.notes.v[i]);
	}
	astra_captured_info_release(&ci);
	if (r <= 0)
		astra_captured_kernel_release(copy);
	return r;
}

int astra_cmd_explain(int argc, char **argv)
{
	struct capture_ctx cx = { NULL, ASTRA_BUF_INIT, NULL };
	const char *why = NULL;
	struct astra_vec nvcc_argv = ASTRA_VEC_INIT;
	struct astra_cmdline cl;
	int i, cc = -1, ret = 0;
	size_t f, k;

	astra_vec_push(&nvcc_argv, "nvcc");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cc") && i + 1 < argc)
			cc = atoi(argv[++i]);
		else if (!strncmp(argv[i], "--cc=", 5))
			cc = atoi(argv[i] + 5);
		else
			astra_vec_push(&nvcc_argv, argv[i]);
	}
	astra_cmdline_parse(&cl, (int)nvcc_argv.nr, nvcc_argv.v);
	astra_vec_clear(&nvcc_argv);
	if (!cl.inputs.nr) {
		fprintf(stderr, "usage: %s --explain FILE.cu [nvcc flags] [--cc XX]\n", astra_progname);
		astra_cmdline_release(&cl);
		return 2;
	}
	if (cc < 0)
		cc = target_cc(&cl);
	/* The file is read as --warmup reads it: the same headers, the same keys, its captures. */
	cx.nvcc = astra_locate_nvcc(0, &why);
	if (cx.nvcc && astra_key_nvcc_version(cx.nvcc, astra_config_str(ASTRA_CFG_DIR), &cx.version) < 0) {
		free(cx.nvcc);
		cx.nvcc = NULL;
	}
	if (cx.nvcc)
		cx.cache = astra_cache_open(NULL);
	for (f = 0; f < cl.inputs.nr; f++) {
		struct astra_tu tu;
		struct astra_search_path sp;
		struct astra_buf out = ASTRA_BUF_INIT;
		char *diags;
		memset(&tu, 0, sizeof(tu));
		memset(&sp, 0, sizeof(sp));
		if (cx.nvcc) {
			astra_search_path_add_toolchain(&sp, &cl, cx.nvcc, astra_config_str(ASTRA_CFG_DIR));
			tu.search = &sp;
		}
		if (astra_extract_tu(&tu, cl.inputs.v[f], &cl) < 0) {
			fprintf(stderr, "%s: cannot read the kernels of %s (see the log)\n", astra_progname, cl.inputs.v[f]);
			astra_tu_release(&tu);
			astra_search_path_release(&sp);
			ret = 1;
			continue;
		}
		diags = astra_diags_format(&tu.diags);
		fputs(diags, stderr);
		free(diags);
		if (!tu.nr_kernels)
			printf("%s: no kernel annotated with #pragma astra\n", cl.inputs.v[f]);
		for (k = 0; k < tu.nr_kernels; k++) {
			const struct astra_kernel *kr = &tu.kernels[k];
			if (kr->bad_pragma) {
				printf("%s:%u: kernel %s: left alone: its pragma has mistakes (see the warnings)\n",
				       kr->file, kr->line, kr->name);
				continue;
			}
			if (kr->pragma.flags & ASTRA_PRAGMA_OFF) {
				printf("%s:%u: kernel %s: left alone: #pragma astra off\n", kr->file, kr->line, kr->name);
				continue;
			}
			{
				struct astra_kernel copy;
				int r = captured(&cx, &tu, &cl, kr, cc, &copy);
				if (r < 0)
					continue;
				astra_rules_explain(r > 0 ? &copy : kr, cc, &out);
				if (r > 0)
					astra_captured_kernel_release(&copy);
			}
			fputs(out.buf, stdout);
			astra_buf_reset(&out);
		}
		astra_buf_release(&out);
		astra_tu_release(&tu);
		astra_search_path_release(&sp);
	}
	if (cx.cache)
		astra_cache_close(cx.cache);
	free(cx.nvcc);
	astra_buf_release(&cx.version);
	astra_cmdline_release(&cl);
	return ret;
}
