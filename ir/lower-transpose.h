/*
 * lower-transpose.h - a transpose generated from the IR
 * (lower-transpose.c; doc/lift.md, issue 27).
 *
 * Contract:
 *   astra_ir_is_transpose: 1 when ir is one store out[c * rows + r] =
 *   v(r, c) whose loads are all at [r * cols + c], else 0 with why set.
 *   astra_ir_lower_transpose writes a kernel definition with k's
 *   signature that computes it through a 32 x 33 shared tile of type
 *   elem (wide: a 64 x 65 tile, two elements a thread, in pairs where
 *   aligned), checking the original's bounds on both sides (the same
 *   elements written).  Returns 0, or -1 with why set.
 *   astra_ir_transpose_launch appends its grid and block (32 x 8).
 */
#ifndef ASTRA_IR_LOWER_TRANSPOSE_H
#define ASTRA_IR_LOWER_TRANSPOSE_H

#include "ir/ir.h"

int astra_ir_is_transpose(const struct astra_ir *ir, struct astra_buf *why);
int astra_ir_lower_transpose(const struct astra_ir *ir, const struct astra_kernel *k, const char *elem, int wide,
			     struct astra_buf *out, struct astra_buf *why);
void astra_ir_transpose_launch(const struct astra_ir *ir, int wide, struct astra_buf *grid, struct astra_buf *block);

#endif
