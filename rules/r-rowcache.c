/*
 * r-rowcache.c - rule "row-cache": a row that several loops read is read
 * from memory once and kept in registers.
 *
 * Loops spread over the threads with the same range (a norm's sum of
 * squares and its scaling, softmax's max, sum and output passes) that read
 * the same data are rewritten like "vectorize", but each thread keeps its
 * C chunks of that data in registers from the first loop to the last
 * (C chosen so the row of the shape with the most data fits, at most 64
 * elements per thread).  Data a loop writes and a later loop reads (the residual of
 * fused_add_rmsnorm) is kept as written.  Rows longer than the cache take
 * the plain vectorized loops.  It replaces "vectorize" (see chunk.h).
 */
#include "autoconfig.h"

#include <stdlib.h>

#include "rules/chunk.h"
#include "rules/rule.h"

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_chunk_opts o = { CHUNK_LOOPS, 0, -1 };
	(void)arg;
	return astra_chunk_apply(rk, &o, why);
}

const struct astra_rule astra_rule_row_cache = {
	.name = "row-cache",
	.summary = "keep a row read by several loops in registers (vector loads, read once)",
	.stage = 40,
	.excludes = "vectorize",
	.apply = apply,
};
