/*
 * r-elems.c - rule "elems-per-thread": a kernel written as one element per
 * thread (`i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;`)
 * gives each thread a chunk of EPT consecutive elements instead, loaded
 * and stored with 64/128-bit accesses, with what the chunk's elements
 * share (row indices, scales) computed once per chunk.
 *
 * The grid shrinks by EPT, so the variant carries its launch:
 * grid = (n + block*EPT - 1) / (block*EPT).  Misaligned or partial chunks
 * run the original body element by element.  Where the vector path's
 * condition is on the parameters alone (row length a multiple of EPT, a
 * wave of chunked blocks), the variant has a dual geometry: when it is
 * false, the original grid and one element per thread.  See chunk.h.
 */
#include "autoconfig.h"

#include "rules/chunk.h"
#include "rules/rule.h"

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_chunk_opts o = { CHUNK_GUARD, 0, 0 };
	(void)arg;
	return astra_chunk_apply(rk, &o, why);
}

const struct astra_rule astra_rule_elems = {
	.name = "elems-per-thread",
	.summary = "EPT consecutive elements per thread with vector loads/stores; grid divided by EPT",
	.flags = RULE_GEOMETRY,
	.stage = 20,
	.excludes = "grid-stride",
	.apply = apply,
};
