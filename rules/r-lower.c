/*
 * r-lower.c - rule "lower-rows": the first lowering from the IR (ir/,
 * doc/lift.md).  A kernel that lifts to a row computation with a
 * reduction, written a block per row with ONE element per thread (block
 * = the row length, often a template parameter, and a block-reduce
 * helper), is generated again from what it computes: a block of 256
 * threads per row whatever the row's length, each thread taking several
 * columns in a block-stride loop, the reductions combined by the rules'
 * block all-reduce (warp shuffles and per-warp partials).  The variant
 * carries its launch (the same grid, its own block).  Only float
 * buffers: the IR drops conversions.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/lower.h"
#include "lib/util.h"
#include "rules/helpers.h"
#include "rules/rule.h"

static int float_buffers(struct astra_rk *rk, struct astra_buf *why)
{
	size_t j;
	for (j = 0; j < rk->k->nr_params; j++) {
		const struct astra_param *p = &rk->k->params[j];
		char *t;
		int ok;
		if (!p->is_pointer)
			continue;
		t = astra_rk_resolve_type(rk, p->elem_type ? p->elem_type : p->type);
		ok = t && !strcmp(t, "float");
		free(t);
		if (!ok) {
			astra_buf_addf(why, "`%s` is not a float buffer (the IR drops conversions)", p->name);
			return 0;
		}
	}
	return 1;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_ir ir;
	struct astra_buf text = ASTRA_BUF_INIT, w = ASTRA_BUF_INIT;
	unsigned helpers = 0;
	int ret = 0;
	(void)arg;
	if (rk->steps.nr) {
		astra_buf_adds(why, "lowers the original kernel only (it must be the first step)");
		return 0;
	}
	if (astra_ir_lift(rk->k, &ir, &w) < 0) {
		astra_buf_adds(why, "the kernel does not lift (the `not lifted:` line says why)");
		goto out;
	}
	if (ir.mapping != IR_MAP_BLOCK || !ir.one_per_thread) {
		astra_buf_addf(why, "written as %s; only a block per row with one element per thread is lowered yet",
			       astra_ir_mapping_name(ir.mapping));
		goto out;
	}
	if (!float_buffers(rk, why))
		goto out;
	astra_buf_reset(&w);
	if (astra_ir_lower_rows(&ir, rk->k, "astra_" ASTRA_SFX "_bred_", &text, &w) < 0) {
		astra_buf_addf(why, "does not lower: %s", w.buf ? w.buf : "?");
		goto out;
	}
	if (strstr(text.buf, "bred_sum"))
		helpers |= HELPER_BLOCK_OF(COMBINE_SUM);
	if (strstr(text.buf, "bred_fmaxf"))
		helpers |= HELPER_BLOCK_OF(COMBINE_FMAXF);
	if (strstr(text.buf, "bred_fminf"))
		helpers |= HELPER_BLOCK_OF(COMBINE_FMINF);
	astra_rk_set_text(rk, astra_buf_detach(&text, NULL));
	astra_rk_set_launch(rk, NULL, "256", "0");
	rk->helpers |= helpers;
	ret = 1;
out:
	astra_ir_release(&ir);
	astra_buf_release(&text);
	astra_buf_release(&w);
	return ret;
}

const struct astra_rule astra_rule_lower_rows = {
	.name = "lower-rows",
	.summary = "block-per-row kernel with one element per thread -> generated from its lifted form: "
		   "256 threads per row, several columns each, block all-reduces",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "block-per-row,warp-per-row,row-split,warp-rows,online-softmax,select-regs,transpose-tile,flatten,tune",
	.apply = apply,
};
