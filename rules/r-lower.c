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
 *
 * Rule "lower-contract": a kernel that lifts to a contraction (a 2-D grid,
 * a thread per out[r, c], a loop over k: the matrix products of PolyBench's
 * shape) is generated again with its operands staged in shared-memory
 * tiles (ir/lower-nest.c): the original's grid, block dim3(T, T), T = 16
 * (the argument: 8, 16 or 32).  Buffers all of one element type, float or
 * double, or one name the rules cannot resolve (PolyBench's DATA_TYPE, a
 * macro of a header): the tiles and the running sum are of that type, as
 * the original's running value in memory is; the verifier judges it.
 *
 * Rule "lower-matvec": a thread per row whose sums over the row read a
 * matrix along its rows (A[r * n + c], uncoalesced: PolyBench's atax,
 * bicg, gesummv, mvt kernels written that way) is generated again a warp
 * per row (ir/lower-nest.c): block 256, a grid of a warp per row; so is a
 * block per row with one element per thread whose rows are summed (the
 * first pass of a two-pass reduction: cuda-samples' reduce0-2).  One
 * that reads it by columns (A[c * n + r]: coalesced, but too few threads,
 * each adding a whole column) is generated again with the sums split over
 * threadIdx.y: block dim3(32, TY), TY = 32 (the argument: 8, 16 or 32), a
 * grid of a block per 32 rows; rule "lower-matvec-narrow" (argument 64):
 * dim3(16, 64), a block per 16 rows.
 *
 * Rule "lower-stencil": a 2-D grid with a thread per element whose
 * outputs read an input at places shifted by up to 2 rows and columns
 * (jacobi-2d, convolution-2d, fdtd-2d) is generated again with each such
 * input staged in a shared tile with its halo: block dim3(32, 8), the
 * original's grid.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "front/types.h"
#include "ir/lower.h"
#include "lib/util.h"
#include "rules/helpers.h"
#include "rules/rule.h"

/*
 * The one type every types() set of the pragma gives the name t, resolved
 * (malloc'd); NULL when a set gives none, the sets differ, or there is no
 * set.
 */
static char *types_give(struct astra_rk *rk, const char *t)
{
	char *first = NULL;
	size_t i;
	for (i = 0; i < rk->k->pragma.nr_types; i++) {
		const char *a = astra_rk_type_arg(rk, i, t);
		char *u = a ? astra_rk_resolve_type(rk, a) : NULL;
		if (!u || (first && strcmp(first, u))) {
			free(u);
			free(first);
			return NULL;
		}
		if (first)
			free(u);
		else
			first = u;
	}
	return first;
}

/* Every pointer parameter a float buffer (the IR drops conversions); else 0 with why. */
int astra_rk_float_buffers(struct astra_rk *rk, struct astra_buf *why)
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
		if (t && !ok) {
			/* a template parameter that every types() set of the pragma makes float */
			char *u = types_give(rk, t);
			ok = u && !strcmp(u, "float");
			free(u);
		}
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
	if (!astra_rk_float_buffers(rk, why))
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

static int is_ident(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* A template parameter that every types() set of the pragma makes float, or every one double. */
static int tmpl_float(struct astra_rk *rk, const char *t)
{
	char *u = astra_rk_is_tmpl_param(rk, t) ? types_give(rk, t) : NULL;
	int ok = u && (!strcmp(u, "float") || !strcmp(u, "double"));
	free(u);
	return ok;
}

/*
 * The one element type of every buffer: float or double, or a name the
 * rules cannot resolve (a macro of a header), spelled alike everywhere.
 * -1 (why set) otherwise: a variant of another type would not compile or
 * would compute in another precision; *out_type is malloc'd.  A template
 * parameter that the pragma's types() make float (or double) in every
 * set is that name: the variant computes in it, as the original.
 */
static int one_type(struct astra_rk *rk, char **out_type, struct astra_buf *why)
{
	char *type = NULL;
	size_t j;
	for (j = 0; j < rk->k->nr_params; j++) {
		const struct astra_param *p = &rk->k->params[j];
		char *t;
		int ok;
		if (!p->is_pointer)
			continue;
		t = astra_rk_resolve_type(rk, p->elem_type ? p->elem_type : p->type);
		ok = t && (!strcmp(t, "float") || !strcmp(t, "double") ||
			   (!astra_type_builtin_size(t) && is_ident(t) && !astra_rk_is_tmpl_param(rk, t)) ||
			   tmpl_float(rk, t));
		if (!ok || (type && strcmp(type, t))) {
			astra_buf_addf(why, "`%s` is not a float or double buffer like the others (the IR drops conversions)",
				       p->name);
			free(t);
			free(type);
			return -1;
		}
		free(type);
		type = t;
	}
	if (!type) {
		astra_buf_adds(why, "no buffer");
		return -1;
	}
	*out_type = type;
	return 0;
}

/* The register-blocked schedules, by argument: outputs per thread (rows x columns), k's step. */
static const struct {
	const char *arg;
	struct astra_contract_rb rb;
} rb_scheds[] = {
	/* k in steps of 16: measured on an H200 against 8 and against a layout of strided rows (doc/lift.md) */
	{ "rb", { 4, 4, 16 } },     /* 64 x 64 per block */
	{ "rb84", { 8, 4, 16 } },   /* 128 x 64 */
	{ "rb8", { 8, 8, 16 } },    /* 128 x 128 */
};

static int apply_contract(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_ir ir;
	struct astra_buf text = ASTRA_BUF_INIT, w = ASTRA_BUF_INIT;
	const struct astra_contract_rb *rb = NULL;
	char *type = NULL, *block = NULL, *grid = NULL;
	int tile = arg ? atoi(arg) : 16, ret = 0, bm, bn;
	size_t j;
	for (j = 0; arg && j < ARRAY_SIZE(rb_scheds); j++)
		if (!strcmp(arg, rb_scheds[j].arg))
			rb = &rb_scheds[j].rb;
	if (!rb && tile != 8 && tile != 16 && tile != 32) {
		astra_buf_addf(why, "the tile `%s` is not 8, 16, 32, rb, rb84 or rb8", arg);
		return 0;
	}
	if (rk->steps.nr) {
		astra_buf_adds(why, "lowers the original kernel only (it must be the first step)");
		return 0;
	}
	if (astra_ir_lift(rk->k, &ir, &w) < 0) {
		astra_buf_adds(why, "the kernel does not lift (the `not lifted:` line says why)");
		goto out;
	}
	if (!ir.inner) {
		astra_buf_addf(why, "written as %s with no loop over k; only contractions (a thread per element "
				    "of a 2-D grid, or a thread per row and its columns, with a loop over k) are tiled",
			       astra_ir_mapping_name(ir.mapping));
		goto out;
	}
	astra_buf_reset(&w);
	/* what does not lower first (it names the line), then the buffers' type */
	if (astra_ir_lower_contract(&ir, rk->k, "float", tile, rb, &text, &w) < 0) {
		astra_buf_addf(why, "does not lower: %s", w.buf ? w.buf : "?");
		goto out;
	}
	if (one_type(rk, &type, why) < 0)
		goto out;
	if (strcmp(type, "float")) {
		astra_buf_reset(&text);
		if (astra_ir_lower_contract(&ir, rk->k, type, tile, rb, &text, &w) < 0)
			goto out;
	}
	block = rb ? xstrdup("dim3(16, 16)") : xasprintf("dim3(%d, %d)", tile, tile);
	/*
	 * A block per tile of the output, from the lifted extents where a
	 * launcher can evaluate them (parameters, the file's macros the kernel
	 * uses); else the original's grid (the tiles are a grid-stride loop,
	 * so any grid is correct, but one made for one output per thread has
	 * idle blocks, and one written with names of the pragma's only may not
	 * be the launcher's to evaluate).
	 */
	bm = rb ? 16 * rb->tm : tile;
	bn = rb ? 16 * rb->tn : tile;
	grid = xasprintf("dim3(((%s) + %d) / %d, ((%s) + %d) / %d)", ir.cols, bn - 1, bn, ir.rows, bm - 1, bm);
	if (!astra_rk_params_only(rk, grid)) {
		free(grid);
		grid = NULL;
	}
	if (!grid && ir.mapping == IR_MAP_THREAD_ROW && rk->k->pragma.grid && rk->k->pragma.block &&
	    strncmp(rk->k->pragma.grid, "dim3", 4) && strncmp(rk->k->pragma.block, "dim3", 4)) {
		/*
		 * A thread per row whose extents the launcher cannot evaluate (a
		 * header's _PB_M): the original's threads, one per row, are about
		 * the rows, and (for its triangle) the columns.  Any grid is correct
		 * (grid-stride tiles); this one has a block per tile, not the
		 * original's few blocks of rows.
		 */
		grid = xasprintf("dim3((((%s) * (%s)) + %d) / %d, (((%s) * (%s)) + %d) / %d)", rk->k->pragma.grid,
				 rk->k->pragma.block, bn - 1, bn, rk->k->pragma.grid, rk->k->pragma.block, bm - 1, bm);
		if (!astra_rk_params_only(rk, grid)) {
			free(grid);
			grid = NULL;
		}
	}
	astra_rk_set_text(rk, astra_buf_detach(&text, NULL));
	astra_rk_set_launch(rk, grid, block, "0");
	ret = 1;
out:
	free(type);
	free(block);
	free(grid);
	astra_ir_release(&ir);
	astra_buf_release(&text);
	astra_buf_release(&w);
	return ret;
}

static int apply_contract_rb(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return apply_contract(rk, "rb", why);
}

static int apply_contract_rb84(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return apply_contract(rk, "rb84", why);
}

static int apply_contract_rb8(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return apply_contract(rk, "rb8", why);
}

#define CONTRACT_EXCLUDES "flatten,transpose-tile,tune,grid-stride,elems-per-thread,block-size,hoist"

const struct astra_rule astra_rule_lower_contract_rb = {
	.name = "lower-contract-rb",
	.summary = "contraction (2-D grid, a thread per out[r,c], a loop over k) -> register-blocked from its lifted "
		   "form: 64 x 64 outputs per block of 16 x 16 threads, 4 x 4 per thread, k in tiles of 16",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "lower-contract,lower-contract-rb84,lower-contract-rb8," CONTRACT_EXCLUDES,
	.apply = apply_contract_rb,
};

const struct astra_rule astra_rule_lower_contract_rb84 = {
	.name = "lower-contract-rb84",
	.summary = "contraction -> register-blocked from its lifted form: 128 x 64 outputs per block of 16 x 16 "
		   "threads, 8 x 4 per thread, k in tiles of 16",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "lower-contract,lower-contract-rb,lower-contract-rb8," CONTRACT_EXCLUDES,
	.apply = apply_contract_rb84,
};

const struct astra_rule astra_rule_lower_contract_rb8 = {
	.name = "lower-contract-rb8",
	.summary = "contraction -> register-blocked from its lifted form: 128 x 128 outputs per block of 16 x 16 "
		   "threads, 8 x 8 per thread, k in tiles of 16",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "lower-contract,lower-contract-rb,lower-contract-rb84," CONTRACT_EXCLUDES,
	.apply = apply_contract_rb8,
};

const struct astra_rule astra_rule_lower_contract = {
	.name = "lower-contract",
	.summary = "contraction (2-D grid, a thread per out[r,c], a loop over k) -> generated from its lifted form: "
		   "operands staged in T x T shared-memory tiles (T=16, or the argument 8/32; rb, rb84, rb8: the "
		   "register-blocked schedules)",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = CONTRACT_EXCLUDES,
	.apply = apply_contract,
};

/*
 * The grid of the warp-per-row variant: a warp for each row the original
 * gave a thread (from the rows, else from its grid and literal block),
 * else 1024 blocks of 8 warps (the rows are a grid-stride loop over the
 * warps, so any grid is correct; PolyBench's rows are macros of a header,
 * which a launcher can name only where the pragma's own launch does).
 */
static char *matvec_grid(struct astra_rk *rk, const struct astra_ir *ir, int rows_per_block)
{
	long blk = astra_rk_block_literal(rk);
	char *g = xasprintf("((%s) + %d) / %d", ir->rows, rows_per_block - 1, rows_per_block);
	if (astra_rk_params_only(rk, g))
		return g;
	free(g);
	if (rk->grid && !strstr(rk->grid, "dim3") && astra_rk_params_only(rk, rk->grid) && blk > 0)
		return xasprintf("((%s) * %ld + %d) / %d", rk->grid, blk, rows_per_block - 1, rows_per_block);
	return xstrdup("1024");
}

/* lower-matvec (stream 0) and lower-matvec-stream (1: the row walk's matrix loads streaming) */
static int matvec(struct astra_rk *rk, const char *arg, int stream, struct astra_buf *why)
{
	struct astra_ir ir;
	struct astra_buf text = ASTRA_BUF_INIT, w = ASTRA_BUF_INIT;
	char *type = NULL, *grid = NULL, *block = NULL;
	int ty = arg ? atoi(arg) : 32, by_cols = 0, ret = 0;
	if (ty != 8 && ty != 16 && ty != 32 && ty != 64) {
		astra_buf_addf(why, "the block's rows `%s` are not 8, 16, 32 or 64", arg);
		return 0;
	}
	if (rk->steps.nr) {
		astra_buf_adds(why, "lowers the original kernel only (it must be the first step)");
		return 0;
	}
	if (astra_ir_lift(rk->k, &ir, &w) < 0) {
		astra_buf_adds(why, "the kernel does not lift (the `not lifted:` line says why)");
		goto out;
	}
	if (ir.mapping != IR_MAP_THREAD_ROW && !(ir.mapping == IR_MAP_BLOCK && ir.one_per_thread)) {
		astra_buf_addf(why, "written as %s; only a thread per row with a loop over the row, or a block per row "
			       "with one element per thread, is lowered", astra_ir_mapping_name(ir.mapping));
		goto out;
	}
	astra_buf_reset(&w);
	if (astra_ir_lower_matvec(&ir, rk->k, "float", ty, stream, &by_cols, &text, &w) < 0) {
		astra_buf_addf(why, "does not lower: %s", w.buf ? w.buf : "?");
		goto out;
	}
	if (stream && by_cols) {
		astra_buf_adds(why, "the matrix is walked by columns (only a walk along the rows loads it streaming)");
		goto out;
	}
	if (arg && !by_cols) {
		/* the same variant as without it: not a second candidate */
		astra_buf_addf(why, "the argument (the block's rows of a walk by columns) does not apply: "
				    "the matrix is walked by rows");
		goto out;
	}
	if (one_type(rk, &type, why) < 0)
		goto out;
	if (strcmp(type, "float")) {
		astra_buf_reset(&text);
		if (astra_ir_lower_matvec(&ir, rk->k, type, ty, stream, &by_cols, &text, &w) < 0)
			goto out;
	}
	grid = matvec_grid(rk, &ir, by_cols ? ASTRA_MATVEC_ROWS(ty) : 8);
	block = by_cols ? xasprintf("dim3(%d, %d)", ASTRA_MATVEC_ROWS(ty), ty) : xstrdup("256");
	astra_rk_set_text(rk, astra_buf_detach(&text, NULL));
	astra_rk_set_launch(rk, grid, block, "0");
	ret = 1;
out:
	free(type);
	free(grid);
	free(block);
	astra_ir_release(&ir);
	astra_buf_release(&text);
	astra_buf_release(&w);
	return ret;
}

static int apply_matvec(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	return matvec(rk, arg, 0, why);
}

static int apply_matvec_narrow(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return apply_matvec(rk, "64", why);
}

/* The walk by columns with 16 rows per block of dim3(16, 64): for few rows (2048: 64 blocks of 32 rows). */
const struct astra_rule astra_rule_lower_matvec_narrow = {
	.name = "lower-matvec-narrow",
	.summary = "thread per row reading a matrix by its columns -> generated from its lifted form: 16 rows per "
		   "block of dim3(16, 64), the sums split over threadIdx.y (twice lower-matvec's blocks)",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "lower-matvec,block-per-row,warp-per-row,row-split,warp-rows,flatten,tune,grid-stride,elems-per-thread,hoist",
	.apply = apply_matvec_narrow,
};

static int apply_matvec_stream(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return matvec(rk, NULL, 1, why);
}

/*
 * The warp-per-row walk with the matrix's loads streaming (ld.global.cs,
 * evict first): a row read once does not push the vector, read by every
 * row, out of L2.  On an H200 a 128 MB walk after an L2 flush ran in 38
 * us instead of 41, a 1 GiB one in 258 instead of 249: a second
 * candidate, the timing picks.
 */
const struct astra_rule astra_rule_lower_matvec_stream = {
	.name = "lower-matvec-stream",
	.summary = "thread per row reading a matrix along its rows -> lower-matvec's warp per row, the matrix's "
		   "loads streaming (evict first: read once, the vector stays in L2)",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "lower-matvec,lower-matvec-narrow,block-per-row,warp-per-row,row-split,warp-rows,flatten,tune,"
		    "grid-stride,elems-per-thread,hoist",
	.apply = apply_matvec_stream,
};

const struct astra_rule astra_rule_lower_matvec = {
	.name = "lower-matvec",
	.summary = "thread per row reading a matrix along its rows (uncoalesced) -> generated from its lifted form: "
		   "a warp per row, lanes on consecutive columns, shuffle sums; by its columns -> 32 rows per "
		   "block of dim3(32, TY), the sums split over threadIdx.y (TY=32, or the argument 8/16)",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "block-per-row,warp-per-row,row-split,warp-rows,flatten,tune,grid-stride,elems-per-thread,hoist",
	.apply = apply_matvec,
};

typedef int (*lower_2d)(const struct astra_ir *ir, const struct astra_kernel *k, const char *type,
			struct astra_buf *out, struct astra_buf *why);

/*
 * The original kernel lifted to a 2-D space with a thread per element
 * (mapping IR_MAP_2D; IR_MAP_2D_TILE too where tiles; a flat space too
 * where tiles is 2), lowered by fn: first in float (what does not lower
 * names its line), then in the buffers' one type.  1 with *text set and
 * ir filled (release it either way), 0 with why set.
 */
static int lower_2d_typed(struct astra_rk *rk, struct astra_ir *ir, lower_2d fn, int tiles, const char *as,
			  struct astra_buf *text, struct astra_buf *why)
{
	struct astra_buf w = ASTRA_BUF_INIT;
	char *type = NULL;
	int ret = 0;
	if (astra_ir_lift(rk->k, ir, &w) < 0) {
		astra_buf_adds(why, "the kernel does not lift (the `not lifted:` line says why)");
		goto out;
	}
	if ((ir->mapping != IR_MAP_2D && !(tiles && ir->mapping == IR_MAP_2D_TILE) && !(tiles > 1 && astra_ir_flat_space(ir))) ||
	    ir->inner) {
		astra_buf_addf(why, "written as %s%s; only a %s with a thread per element is lowered%s",
			       astra_ir_mapping_name(ir->mapping), ir->inner ? " with a loop over k" : "",
			       tiles > 1 ? "flat or 2-D space" : tiles ? "2-D space" : "2-D grid", as);
		goto out;
	}
	astra_buf_reset(&w);
	if (fn(ir, rk->k, "float", text, &w) < 0) {
		astra_buf_addf(why, "does not lower: %s", w.buf ? w.buf : "?");
		goto out;
	}
	if (one_type(rk, &type, why) < 0)
		goto out;
	if (strcmp(type, "float")) {
		astra_buf_reset(text);
		if (fn(ir, rk->k, type, text, &w) < 0)
			goto out;
	}
	ret = 1;
out:
	free(type);
	astra_buf_release(&w);
	return ret;
}

static int apply_stencil(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_ir ir;
	struct astra_buf text = ASTRA_BUF_INIT;
	int ret = 0;
	(void)arg;
	if (rk->steps.nr) {
		astra_buf_adds(why, "lowers the original kernel only (it must be the first step)");
		return 0;
	}
	if (lower_2d_typed(rk, &ir, astra_ir_lower_stencil, 0, "", &text, why)) {
		astra_rk_set_text(rk, astra_buf_detach(&text, NULL));
		astra_rk_set_launch(rk, NULL, "dim3(32, 8)", "0");
		ret = 1;
	}
	astra_ir_release(&ir);
	astra_buf_release(&text);
	return ret;
}

const struct astra_rule astra_rule_lower_stencil = {
	.name = "lower-stencil",
	.summary = "2-D grid, a thread per element reading an input at shifted places (a stencil) -> generated from "
		   "its lifted form: the input staged in a shared tile with its halo per 32 x 8 block",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "flatten,transpose-tile,tune,grid-stride,elems-per-thread,block-size,hoist",
	.apply = apply_stencil,
};

const struct astra_rule astra_rule_lower_rows = {
	.name = "lower-rows",
	.summary = "block-per-row kernel with one element per thread -> generated from its lifted form: "
		   "256 threads per row, several columns each, block all-reduces",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "block-per-row,warp-per-row,row-split,warp-rows,online-softmax,select-regs,transpose-tile,flatten,tune",
	.apply = apply,
};

/*
 * Rule "lower-map": an element-wise map of a 2-D space (a thread per
 * element of a 2-D grid, or a tile's rows per thread: PolyBench's gemver
 * update, correlation's centring, fdtd-2d's updates, the jacobi copy-back,
 * cuda-samples' tiled copy) is generated again with 4 consecutive columns
 * per thread, loaded and stored 4 at a time where aligned
 * (ir/lower-map.c).  Launch: a block of 256 per 1024 elements where the
 * launcher can evaluate the extents; else, for a 2-D grid with a thread
 * per element, blocks of 256 and the original's grid.y a quarter as
 * large (`dim3(X, Y)` written out: a thread per 4 of the original's
 * elements, blocks of the size PolyBench gives its own) or, when its grid
 * is not written so, blocks of 64 and the original's grid; for a tile's
 * rows per thread, the original's grid and blocks of 256.  The groups are
 * a grid-stride loop over the whole grid: any grid is correct.
 */

/* dim3(X, Y) -> dim3(X, ((Y) + div - 1) / div); NULL when g is not two arguments of dim3 (malloc'd). */
static char *fewer_rows(const char *g, int div)
{
	const char *p, *comma = NULL;
	int depth = 0;
	size_t n;
	if (!g || strncmp(g, "dim3(", 5))
		return NULL;
	n = strlen(g);
	if (n < 7 || g[n - 1] != ')')
		return NULL;
	for (p = g + 5; p < g + n - 1; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth < 0)
			return NULL;
		else if (*p == ',' && !depth) {
			if (comma)
				return NULL;
			comma = p;
		}
	}
	if (!comma || depth)
		return NULL;
	return xasprintf("dim3(%.*s, ((%.*s) + %d) / %d)", (int)(comma - g - 5), g + 5, (int)(g + n - 2 - comma),
			 comma + 1, div - 1, div);
}
/* lower-map (rows 1) and lower-strip (rows ASTRA_STRIP_ROWS): the same launch, a thread per 4 x rows elements */
static int map_rows(struct astra_rk *rk, lower_2d fn, int rows, struct astra_buf *why)
{
	struct astra_ir ir;
	struct astra_buf text = ASTRA_BUF_INIT;
	char *grid = NULL;
	const char *block = "256";
	int ret = 0;
	if (rk->steps.nr) {
		astra_buf_adds(why, "lowers the original kernel only (it must be the first step)");
		return 0;
	}
	if (!lower_2d_typed(rk, &ir, fn, 2, rows > 1 ? " as a strip" : " as a map", &text, why))
		goto out;
	if (astra_ir_flat_space(&ir)) {
		/* one row: a block of 256 per 1024 elements, else the original's geometry */
		grid = xasprintf("(((%s) + 3) / 4 - (%s) / 4 + 255) / 256", ir.rows, ir.rows_lo ? ir.rows_lo : "0");
		if (!astra_rk_params_only(rk, grid)) {
			free(grid);
			grid = NULL;
			block = NULL;
		}
	} else {
		if (rows > 1)
			grid = xasprintf("(((%s) - (%s) + %d) / %d * (((%s) + 3) / 4 - (%s) / 4) + 255) / 256", ir.rows,
					 ir.rows_lo ? ir.rows_lo : "0", rows - 1, rows, ir.cols, ir.cols_lo ? ir.cols_lo : "0");
		else
			grid = xasprintf("(((%s) - (%s)) * (((%s) + 3) / 4 - (%s) / 4) + 255) / 256", ir.rows,
					 ir.rows_lo ? ir.rows_lo : "0", ir.cols, ir.cols_lo ? ir.cols_lo : "0");
		if (!astra_rk_params_only(rk, grid)) {
			free(grid);
			grid = ir.mapping == IR_MAP_2D ? fewer_rows(rk->grid, 4 * rows) : NULL;
			if (ir.mapping == IR_MAP_2D && !grid)
				block = "64";
		}
	}
	astra_rk_set_text(rk, astra_buf_detach(&text, NULL));
	astra_rk_set_launch(rk, grid, block, "0");
	ret = 1;
out:
	free(grid);
	astra_ir_release(&ir);
	astra_buf_release(&text);
	return ret;
}

static int apply_map(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return map_rows(rk, astra_ir_lower_map, 1, why);
}

static int apply_strip(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return map_rows(rk, astra_ir_lower_strip, ASTRA_STRIP_ROWS, why);
}

const struct astra_rule astra_rule_lower_map = {
	.name = "lower-map",
	.summary = "element-wise map of a 2-D space (a thread per element) -> generated from its lifted form: 4 "
		   "consecutive columns per thread, 16-byte loads and stores where aligned, a grid-stride loop",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "flatten,transpose-tile,tune,grid-stride,elems-per-thread,block-size,hoist,vectorize",
	.apply = apply_map,
};

/*
 * Rule "lower-strip": the map of lower-map whose stores read an input at
 * several rows (a stencil: convolution-2d, jacobi-2d, fdtd-2d's hz
 * update) with each thread's 4 columns over ASTRA_STRIP_ROWS rows, every
 * place the strip reads loaded once (ir/lower-map.c,
 * astra_ir_lower_strip): an input row crosses L2 once per strip instead
 * of once per output row.  Launch as lower-map's, a thread per 4 x 4
 * elements.
 */
const struct astra_rule astra_rule_lower_strip = {
	.name = "lower-strip",
	.summary = "element-wise map reading an input at several rows (a stencil) -> generated from its lifted form: "
		   "4 columns x 4 rows per thread, each input place loaded once, 16-byte loads and stores where aligned",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "flatten,transpose-tile,tune,grid-stride,elems-per-thread,block-size,hoist,vectorize",
	.apply = apply_strip,
};
