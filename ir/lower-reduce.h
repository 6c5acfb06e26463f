/*
 * lower-reduce.h - a reduction to one number generated from the IR
 * (lower-reduce.c; doc/lift.md, issue 27).
 *
 * Contract:
 *   astra_ir_is_full_reduction: 1 when ir is one atomic sum of a value of
 *   the elements over a flat space to one place (`out[0] += sum_i(...)`),
 *   else 0 with why saying what differs.
 *   astra_ir_lower_reduce writes a kernel definition with k's signature
 *   that computes it with a grid-stride accumulation (float4 loads when
 *   the buffers are 16-byte aligned, a scalar tail), the block all-reduce
 *   named block_sum (every thread gets the block's sum) and one atomicAdd
 *   per block.  Values are float: the caller checks that the buffers are.
 *   Returns 0, or -1 with why set.
 *   astra_ir_reduce_grid appends its grid, an expression of the extent
 *   (at most 1024 blocks, at least one); the block is any multiple of 32.
 */
#ifndef ASTRA_IR_LOWER_REDUCE_H
#define ASTRA_IR_LOWER_REDUCE_H

#include "ir/ir.h"

int astra_ir_is_full_reduction(const struct astra_ir *ir, struct astra_buf *why);
int astra_ir_lower_reduce(const struct astra_ir *ir, const struct astra_kernel *k, const char *block_sum,
			  struct astra_buf *out, struct astra_buf *why);
void astra_ir_reduce_grid(const struct astra_ir *ir, struct astra_buf *grid);

#endif
