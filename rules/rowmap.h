/*
 * rowmap.h - the engine behind the row-mapping rules: a kernel written as
 * one thread per row becomes a block (or a warp) per row.
 *
 * The shape it reads:
 *
 *   int row = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (row >= rows) return;           (or: if (row < rows) { ... })
 *   ...row-level code, loops over the row's columns...
 *
 * Each column loop `for (int j = A; j < B; ++j)` whose iterations are
 * independent is spread over the row's threads (`j = A + lane; j += n`);
 * scalars it accumulates (`s += e`, `m = fmaxf(m, e)`, max, min, fminf)
 * are combined across the threads after the loop, so every thread holds
 * the row's value, as the single thread did.  Row-level code between the
 * loops runs in every thread (it computes the same values); a statement
 * that stores to memory runs in one thread; from the first loop that
 * stores and cannot be spread, the rest of the kernel runs in one thread.
 * Memory written by a spread loop is fenced before later code reads it.
 */
#ifndef ASTRA_ROWMAP_H
#define ASTRA_ROWMAP_H

#include "rules/rule.h"

/* warp: a warp per row (blocks of 256 threads hold 8 rows); else a block of 256 per row. */
int astra_rowmap_apply(struct astra_rk *rk, int warp, struct astra_buf *why);

#endif
