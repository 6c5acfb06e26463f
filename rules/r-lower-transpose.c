/*
 * r-lower-transpose.c - rule "lower-transpose": a kernel that lifts to a
 * transpose, `out[c,r] = v(r,c)` (the naive `out[c * rows + r] =
 * in[r * cols + c]`, whatever its mapping: a 2-D grid with an `if` block
 * or an early return, a flat index split by `/` and `%`), generated again
 * from its lifted form (ir/lower-transpose.c, doc/lift.md): 32 x 32
 * shared tiles with a padding column, coalesced loads and stores, the
 * original's bounds checked on both sides; rule "lower-transpose-wide":
 * 64 x 64 tiles, two elements a thread each way, moved in pairs where
 * aligned.  Float buffers only (the IR drops conversions).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/lower-transpose.h"
#include "lib/util.h"
#include "rules/rule.h"

static int lower(struct astra_rk *rk, int wide, struct astra_buf *why)
{
	struct astra_ir ir;
	struct astra_buf text = ASTRA_BUF_INIT, w = ASTRA_BUF_INIT, grid = ASTRA_BUF_INIT, block = ASTRA_BUF_INIT;
	int ret = 0;
	if (rk->steps.nr) {
		astra_buf_adds(why, "lowers the original kernel only (it must be the first step)");
		return 0;
	}
	if (astra_ir_lift(rk->k, &ir, &w) < 0) {
		astra_buf_adds(why, "the kernel does not lift (the `not lifted:` line says why)");
		goto out;
	}
	astra_buf_reset(&w);
	if (!astra_ir_is_transpose(&ir, &w)) {
		astra_buf_addf(why, "not a transpose: %s", w.buf ? w.buf : "?");
		goto out;
	}
	if (!astra_rk_float_buffers(rk, why))
		goto out;
	astra_ir_transpose_launch(&ir, wide, &grid, &block);
	if (!astra_rk_params_only(rk, grid.buf)) {
		astra_buf_addf(why, "the extents (%s, %s) are not expressions of the kernel's parameters", ir.rows, ir.cols);
		goto out;
	}
	astra_buf_reset(&w);
	if (astra_ir_lower_transpose(&ir, rk->k, "float", wide, &text, &w) < 0) {
		astra_buf_addf(why, "does not lower: %s", w.buf ? w.buf : "?");
		goto out;
	}
	astra_rk_set_text(rk, astra_buf_detach(&text, NULL));
	astra_rk_set_launch(rk, grid.buf, block.buf, "0");
	ret = 1;
out:
	astra_ir_release(&ir);
	astra_buf_release(&text);
	astra_buf_release(&w);
	astra_buf_release(&grid);
	astra_buf_release(&block);
	return ret;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return lower(rk, 0, why);
}

static int apply_wide(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return lower(rk, 1, why);
}

const struct astra_rule astra_rule_lower_transpose = {
	.name = "lower-transpose",
	.summary = "transpose (out[c,r] = in[r,c]) -> generated from its lifted form: 32x32 shared tiles with padding, "
		   "coalesced loads and stores, the original's bounds",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "lower-rows,lower-reduce,block-per-row,warp-per-row,row-split,warp-rows,online-softmax,select-regs,"
		    "transpose-tile,flatten,tune,elems-per-thread,grid-stride,warp-reduce,vectorize,row-cache,half2,block-size",
	.apply = apply,
};

/* The same computation through 64 x 64 tiles, two elements a thread each way, in pairs where aligned. */
const struct astra_rule astra_rule_lower_transpose_wide = {
	.name = "lower-transpose-wide",
	.summary = "transpose (out[c,r] = in[r,c]) -> generated from its lifted form: 64x64 shared tiles with padding, "
		   "two elements a thread each way, 8-byte loads and stores where aligned",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "lower-transpose,lower-rows,lower-reduce,block-per-row,warp-per-row,row-split,warp-rows,online-softmax,"
		    "select-regs,transpose-tile,flatten,tune,elems-per-thread,grid-stride,warp-reduce,vectorize,row-cache,"
		    "half2,block-size",
	.apply = apply_wide,
};
