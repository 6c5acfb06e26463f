/*
 * lower.h - generating a kernel from the IR (lower.c): the first step of
 * issue 27's lowering.
 *
 * Contract: astra_ir_lower_rows writes, for a lifted rows x columns
 * computation with at least one reduction over a row (and no atomic
 * stores, no stored buffer read at another place), a kernel definition
 * with k's signature that gives each row a block of any size: the
 * columns in block-stride loops, each reduction followed by a call of the
 * block all-reduce named reduce_prefix followed by "sum", "fmaxf" or
 * "fminf", then the stores.  Values are float: the caller checks that
 * the kernel's buffers are.  Returns 0, or -1 with why saying what does
 * not lower.  The launch: grid = the rows, block = any multiple of 32.
 */
#ifndef ASTRA_IR_LOWER_H
#define ASTRA_IR_LOWER_H

#include "ir/ir.h"

int astra_ir_lower_rows(const struct astra_ir *ir, const struct astra_kernel *k, const char *reduce_prefix,
			struct astra_buf *out, struct astra_buf *why);

#endif
