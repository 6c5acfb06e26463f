/*
 * chunk.h - the engine behind the vectorizing rules: give each thread a
 * chunk of EPT consecutive elements of a parallel loop, and move the
 * chunk's memory traffic into 64/128-bit loads and stores.
 *
 * It handles two shapes of elementwise code:
 *
 *   loops:  for (int i = threadIdx.x; i < N; i += blockDim.x) BODY
 *           (also blockIdx.x*blockDim.x+threadIdx.x / blockDim.x*gridDim.x,
 *           and lane / 32 in a warp) -- the launch does not change;
 *   guard:  int i = blockIdx.x*blockDim.x + threadIdx.x;
 *           if (i < N) BODY   or   if (i >= N) return; BODY...
 *           -- the grid shrinks by EPT, so the variant carries its launch;
 *           when the vector path's condition is on parameters alone, the
 *           launch and the kernel test it, and where it is false they are
 *           the original's (one element per thread, grid n / block).
 *
 * For each chunk, when every vectorized access is aligned, the chunk is
 * whole (i0 + EPT <= N) and the divisions the index needs keep a chunk in
 * one row (D % EPT == 0), the chunk's elements are loaded with vector
 * loads, BODY runs EPT times from registers (unrolled), and the results
 * are stored with vector stores.  Otherwise the chunk runs BODY element by
 * element, exactly as the original: that is the scalar tail and the
 * misaligned path.  An access is vectorized when its index is the loop
 * index plus something the chunk does not change; every other access
 * stays as written.
 *
 * With a register cache (cache > 0), a loop's chunks stay in registers for
 * later loops of the same shape that read the same data (a row read twice
 * is read from memory once) while the row fits in cache chunks per thread.
 */
#ifndef ASTRA_CHUNK_H
#define ASTRA_CHUNK_H

#include "rules/rule.h"

enum astra_chunk_mode {
	CHUNK_LOOPS, /* distributed loops; launch unchanged */
	CHUNK_GUARD, /* one element per thread under a bounds guard; grid / EPT */
};

struct astra_chunk_opts {
	enum astra_chunk_mode mode;
	int ept;     /* elements per chunk; 0: 16 bytes of the widest element */
	int cache;   /* chunks kept in registers per thread (CHUNK_LOOPS); 0: none, -1: sized from the shapes */
};

/* Rewrite rk; returns 1, 0 (declined, why says why) or -1 like a rule's apply(). */
int astra_chunk_apply(struct astra_rk *rk, const struct astra_chunk_opts *o, struct astra_buf *why);

#endif
