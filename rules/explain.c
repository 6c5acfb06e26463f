/*
 * explain.c - `astra-cc --explain` (see explain.h): every rule is tried on
 * a scratch copy of the kernel, alone, and its verdict printed with the
 * precondition's own words; then the planner's first round.
 *
 * The command reads the file through passes/extract.c exactly as a build
 * does, so what it says about a kernel is what the optimization loop sees.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astra-cc/nvccopts.h"
#include "astra-cc/util.h"
#include "passes/extract.h"
#include "rules/explain.h"
#include "rules/planner.h"
#include "rules/rule.h"

static void one_line(struct astra_buf *out, const char *s)
{
	for (; *s; s++)
		astra_buf_addch(out, *s == '\n' ? ' ' : *s);
}

void astra_rules_explain(const struct astra_kernel *k, int cc, struct astra_buf *out)
{
	struct astra_rk rk;
	size_t i, j;

	astra_buf_addf(out, "%s:%u: kernel %s", k->file ? k->file : "?", k->line, k->name);
	if (cc)
		astra_buf_addf(out, " (target sm_%d)\n", cc);
	else
		astra_buf_adds(out, " (target unknown: rules that need one decline; give -arch=sm_XX or --cc XX)\n");
	astra_rk_init(&rk, k, cc);
	for (i = 0; i < astra_nr_rules; i++) {
		const struct astra_rule *r = astra_rules[i];
		struct astra_vec args = ASTRA_VEC_INIT;
		if (r->flags & RULE_SWEEP) {
			struct astra_vec ok = ASTRA_VEC_INIT;
			struct astra_buf first = ASTRA_BUF_INIT;
			r->args(&rk, &args);
			for (j = 0; j < args.nr; j++) {
				struct astra_rk w;
				struct astra_buf why = ASTRA_BUF_INIT;
				char *step = xasprintf("%s=%s", r->name, args.v[j]);
				astra_rk_copy(&w, &rk);
				if (astra_rk_step(&w, step, &why) == 1)
					astra_vec_push(&ok, args.v[j]);
				else if (!first.len)
					astra_buf_addf(&first, "%s: %s", args.v[j], why.buf);
				astra_rk_release(&w);
				astra_buf_release(&why);
				free(step);
			}
			if (ok.nr) {
				astra_buf_addf(out, "  %-16s applies: ", r->name);
				for (j = 0; j < ok.nr; j++)
					astra_buf_addf(out, "%s%s", j ? " " : "", ok.v[j]);
				astra_buf_addch(out, '\n');
			} else {
				astra_buf_addf(out, "  %-16s declines: ", r->name);
				one_line(out, args.nr ? first.buf : "nothing to sweep");
				astra_buf_addch(out, '\n');
			}
			astra_vec_clear(&ok);
			astra_buf_release(&first);
		} else {
			struct astra_rk w;
			struct astra_buf why = ASTRA_BUF_INIT;
			astra_rk_copy(&w, &rk);
			if (astra_rk_step(&w, r->name, &why) == 1) {
				astra_buf_addf(out, "  %-16s applies\n", r->name);
			} else {
				astra_buf_addf(out, "  %-16s declines: ", r->name);
				one_line(out, why.buf);
				astra_buf_addch(out, '\n');
			}
			astra_rk_release(&w);
			astra_buf_release(&why);
		}
		astra_vec_clear(&args);
	}
	astra_rk_release(&rk);
	{
		struct astra_vec plan = ASTRA_VEC_INIT;
		astra_rules_plan(k, cc, NULL, 0, 16, &plan);
		astra_buf_addf(out, "  first round (%zu candidate%s):\n", plan.nr, plan.nr == 1 ? "" : "s");
		for (j = 0; j < plan.nr; j++)
			astra_buf_addf(out, "    %s\n", plan.v[j]);
		astra_vec_clear(&plan);
	}
}

/* The highest sm_XX the command line compiles for, 0 when unknown. */
static int target_cc(const struct astra_cmdline *cl)
{
	struct astra_vec v = ASTRA_VEC_INIT;
	int cc = 0;
	size_t i;
	if (astra_cmdline_archs(cl, &v) == 0)
		for (i = 0; i < v.nr; i++) {
			int n = atoi(v.v[i]);
			if (n > cc)
				cc = n;
		}
	astra_vec_clear(&v);
	return cc;
}

int astra_rules_explain_command(int argc, char **argv)
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
