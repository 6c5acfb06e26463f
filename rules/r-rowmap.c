/*
 * r-rowmap.c - rules "block-per-row" and "warp-per-row": a kernel in which
 * one thread walks a whole row gets a block of 256 threads per row, or a
 * warp per row (8 rows per block of 256), its column loops spread over
 * the threads and its sums/maxima combined with shuffles.  The variant
 * carries its launch.  See rowmap.h for what qualifies.
 *
 * The two rules are one engine with one switch, so they share this file.
 */
#include "autoconfig.h"

#include "rules/rowmap.h"
#include "rules/rule.h"

static int block_apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return astra_rowmap_apply(rk, 0, why);
}

static int warp_apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	(void)arg;
	return astra_rowmap_apply(rk, 1, why);
}

const struct astra_rule astra_rule_block_per_row = {
	.name = "block-per-row",
	.summary = "thread-per-row kernel -> a block of 256 threads per row, column loops spread, block reductions",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "warp-per-row",
	.apply = block_apply,
};

const struct astra_rule astra_rule_warp_per_row = {
	.name = "warp-per-row",
	.summary = "thread-per-row kernel -> a warp per row (8 per block), column loops spread, shuffle reductions",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "block-per-row",
	.apply = warp_apply,
};
