/*
 * print.h - canonical text of index expressions (print.c), for the
 * lifter's comparisons; the IR's one-line form is in ir.h.
 */
#ifndef ASTRA_IR_PRINT_H
#define ASTRA_IR_PRINT_H

#include "ir/ir.h"

/*
 * An integer expression as a sum of products, terms and factors sorted:
 * `blockIdx.x * blockDim.x + threadIdx.x` (as atoms) is
 * "bdim.x*bid.x + tid.x"; what is not a sum or product (a quotient, a
 * load) is one factor, printed canonically inside.
 */
void astra_ir_print_poly(const struct astra_ir_node *n, struct astra_buf *out);
/* The integer term of that sum (0 without one): `NJ*r + c - NJ - 1` gives -1. */
long astra_ir_poly_constant(const struct astra_ir_node *n);

#endif
