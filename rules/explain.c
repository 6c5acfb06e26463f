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

/*
 * The first round as the loop makes it (agents/opt-rules.c, agents/loop.c):
 * the planner's step lists, each built, those that no longer build and
 * those whose code is the same as an earlier one's left out, and why, so
 * that the count is the one --warmup prints.
 */
static void first_round(const struct astra_kernel *k, int cc, struct astra_buf *out)
{
	struct astra_vec plan = ASTRA_VEC_INIT, kept = ASTRA_VEC_INIT, texts = ASTRA_VEC_INIT;
	struct astra_buf left = ASTRA_BUF_INIT;
	size_t j, i, nr_left = 0;

	astra_rules_plan(k, cc, NULL, 0, ASTRA_ROUND_CANDIDATES, &plan);
	for (j = 0; j < plan.nr; j++) {
		struct astra_variant v = { 0 };
		struct astra_buf why = ASTRA_BUF_INIT;
		if (astra_rules_build(k, cc, plan.v[j], &v, &why) != 1) {
			astra_buf_addf(&left, "    %s: does not build: ", plan.v[j]);
			one_line(&left, why.len ? why.buf : "(no reason given)");
			astra_buf_addch(&left, '\n');
			nr_left++;
		} else {
			for (i = 0; i < texts.nr && strcmp(texts.v[i], v.text); i++)
				;
			if (i < texts.nr) {
				astra_buf_addf(&left, "    %s: the same code as %s\n", plan.v[j], kept.v[i]);
				nr_left++;
			} else {
				astra_vec_push(&texts, v.text);
				astra_vec_push(&kept, plan.v[j]);
			}
		}
		astra_variant_release(&v);
		astra_buf_release(&why);
	}
	astra_buf_addf(out, "  first round (%zu candidate%s):\n", kept.nr, kept.nr == 1 ? "" : "s");
	for (j = 0; j < kept.nr; j++)
		astra_buf_addf(out, "    %s\n", kept.v[j]);
	if (nr_left) {
		astra_buf_addf(out, "  left out of the first round (%zu of the %zu planned):\n", nr_left, plan.nr);
		astra_buf_add(out, left.buf, left.len);
	}
	astra_vec_clear(&plan);
	astra_vec_clear(&kept);
	astra_vec_clear(&texts);
	astra_buf_release(&left);
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
	first_round(k, cc, out);
}
