/*
 * r-lower-reduce.c - rule "lower-reduce": a reduction to one number
 * (`out[0] += sum_i(...)`, whatever the original's mechanism: an
 * atomicAdd per element, a shared-memory tree or warp shuffles and one
 * atomicAdd per block, a grid-stride loop) generated again from its
 * lifted form (ir/lower-reduce.c, doc/lift.md): grid-stride
 * accumulation with float4 loads and a scalar tail, the rules' block
 * all-reduce (warp shuffles and per-warp partials), one atomicAdd per
 * block, at most 1024 blocks of 256 threads.  Float buffers only (the IR
 * drops conversions).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/lower-reduce.h"
#include "lib/util.h"
#include "rules/helpers.h"
#include "rules/rule.h"

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_ir ir;
	struct astra_buf text = ASTRA_BUF_INIT, w = ASTRA_BUF_INIT, grid = ASTRA_BUF_INIT;
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
	astra_buf_reset(&w);
	if (!astra_ir_is_full_reduction(&ir, &w)) {
		astra_buf_addf(why, "not a reduction to one number: %s", w.buf ? w.buf : "?");
		goto out;
	}
	if (!astra_rk_float_buffers(rk, why))
		goto out;
	astra_ir_reduce_grid(&ir, &grid);
	if (!astra_rk_params_only(rk, grid.buf)) {
		astra_buf_addf(why, "the extent (%s) is not an expression of the kernel's parameters", ir.rows);
		goto out;
	}
	astra_buf_reset(&w);
	if (astra_ir_lower_reduce(&ir, rk->k, ASTRA_HELPER("bred_sum"), &text, &w) < 0) {
		astra_buf_addf(why, "does not lower: %s", w.buf ? w.buf : "?");
		goto out;
	}
	astra_rk_set_text(rk, astra_buf_detach(&text, NULL));
	astra_rk_set_launch(rk, grid.buf, "256", "0");
	rk->helpers |= HELPER_BLOCK_OF(COMBINE_SUM);
	ret = 1;
out:
	astra_ir_release(&ir);
	astra_buf_release(&text);
	astra_buf_release(&w);
	astra_buf_release(&grid);
	return ret;
}

const struct astra_rule astra_rule_lower_reduce = {
	.name = "lower-reduce",
	.summary = "reduction to one number (out[0] += sum_i(...)) -> generated from its lifted form: "
		   "grid-stride float4 accumulation, block all-reduce, one atomicAdd per block",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "lower-rows,block-per-row,warp-per-row,row-split,warp-rows,online-softmax,select-regs,transpose-tile,"
		    "flatten,tune,elems-per-thread,grid-stride,warp-reduce,vectorize,row-cache,half2",
	.apply = apply,
};
