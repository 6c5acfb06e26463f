/*
 * explain.c - why each rule applies or not (see explain.h): every rule is
 * tried on a scratch copy of the kernel, alone, and its verdict printed
 * with the precondition's own words; then the planner's first round.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "lib/util.h"
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
	{
		struct astra_ir ir;
		struct astra_buf why = ASTRA_BUF_INIT;
		if (astra_ir_lift(k, &ir, &why) == 0) {
			astra_buf_adds(out, "  lifted: ");
			astra_ir_print(&ir, out);
			astra_buf_addf(out, "  [%s]\n", astra_ir_mapping_name(ir.mapping));
		} else {
			astra_buf_adds(out, "  not lifted: ");
			one_line(out, why.buf ? why.buf : "?");
			astra_buf_addch(out, '\n');
		}
		astra_ir_release(&ir);
		astra_buf_release(&why);
	}
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
