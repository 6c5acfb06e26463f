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

#include "astra-cc/cmd-explain.h"
#include "front/extract.h"
#include "lib/arch.h"
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

int astra_cmd_explain(int argc, char **argv)
{
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
	for (f = 0; f < cl.inputs.nr; f++) {
		struct astra_tu tu;
		struct astra_buf out = ASTRA_BUF_INIT;
		char *diags;
		memset(&tu, 0, sizeof(tu));
		if (astra_extract_tu(&tu, cl.inputs.v[f], &cl) < 0) {
			fprintf(stderr, "%s: cannot read the kernels of %s (see the log)\n", astra_progname, cl.inputs.v[f]);
			astra_tu_release(&tu);
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
			astra_rules_explain(kr, cc, &out);
			fputs(out.buf, stdout);
			astra_buf_reset(&out);
		}
		astra_buf_release(&out);
		astra_tu_release(&tu);
	}
	astra_cmdline_release(&cl);
	return ret;
}
