/*
 * r-vectorize.c - rule "vectorize": 64/128-bit loads and stores in loops
 * spread over threads, with an alignment check and a scalar tail.
 *
 * Each thread takes chunks of EPT consecutive elements (EPT = 16 bytes of
 * the widest element vectorized: 8 halves, 4 floats) instead of single
 * elements, loads each chunk with one vector load per array, runs the
 * loop body EPT times on registers and stores the results with vector
 * stores.  Chunks that are misaligned or cut by the end of the range run
 * the original body element by element.  The launch does not change.
 * See chunk.h for what qualifies.
 */
#include "autoconfig.h"

#include "rules/chunk.h"
#include "rules/rule.h"

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_chunk_opts o = { CHUNK_LOOPS, 0, 0 };
	(void)arg;
	return astra_chunk_apply(rk, &o, why);
}

const struct astra_rule astra_rule_vectorize = {
	.name = "vectorize",
	.summary = "vector loads/stores of EPT elements per chunk in thread-strided loops, aligned or scalar tail",
	.stage = 40,
	.excludes = "row-cache",
	.apply = apply,
};
