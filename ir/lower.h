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

/*
 * astra_ir_lower_contract (lower-nest.c) writes, for a lifted contraction
 * (a 2-D grid, a thread per out[r, c], one sum over k whose loads each
 * depend on k and one of r, c), a kernel with k's signature that stages
 * the sum's operands in `tile` x `tile` shared-memory tiles of `type`
 * (the buffers' element type), adds the terms in the original's order of
 * k from the running value's original start, and stores what the
 * original stores under its guard.  The launch: block = dim3(tile, tile),
 * any 2-D grid (blocks take the output's tiles in grid-stride loops).
 * With rb, register-blocked instead (tile unused): each of dim3(16, 16)
 * threads computes rb->tm x rb->tn outputs of a (16 tm) x (16 tn) block
 * tile from registers, k staged in steps of rb->bk, the next step fetched
 * while the current one is computed.
 * Returns 0, or -1 with why saying what does not lower ("file:line: ..."
 * where a store's line is known).
 */
struct astra_contract_rb {
	int tm, tn, bk;   /* tm, tn multiples of 4; (16 tm) bk and (16 tn) bk multiples of 256 */
};
int astra_ir_lower_contract(const struct astra_ir *ir, const struct astra_kernel *k, const char *type, int tile,
			    const struct astra_contract_rb *rb, struct astra_buf *out, struct astra_buf *why);

/*
 * astra_ir_lower_matvec (lower-nest.c) writes, for a lifted thread-per-row
 * computation whose stores are per row and whose sums over the row read a
 * matrix, a kernel with k's signature.  Where a sum reads the matrix
 * along its rows (A[r * n + c]: uncoalesced a thread per row), each row
 * gets a warp: lanes on consecutive columns, the sums combined by
 * shuffles, lane 0 storing; rows in a grid-stride loop over the warps:
 * block = any multiple of 32, any grid; *by_cols is set to 0.  Where the
 * sums read it by columns only (A[c * n + r]: coalesced, but a thread
 * adds a whole column), each block of dim3(32, ty) takes 32 consecutive
 * rows on threadIdx.x and splits their sums over threadIdx.y, the parts
 * combined in shared memory and stored by the threads of threadIdx.y 0;
 * the blocks' rows in a grid-stride loop: block = dim3(32, ty) exactly,
 * any grid; *by_cols is set to 1.  ty 64: 16 rows per block instead
 * (block dim3(16, 64): a warp's two halves read two columns, 64 bytes
 * each), twice the blocks for the same rows (ASTRA_MATVEC_ROWS).
 * stream 1: the row walk loads the matrix (its loads that depend on the
 * row) with streaming loads (__ldcs, evict first).  Returns 0, or -1
 * with why ("file:line: ..." where known).
 */
#define ASTRA_MATVEC_ROWS(ty) ((ty) == 64 ? 16 : 32)
int astra_ir_lower_matvec(const struct astra_ir *ir, const struct astra_kernel *k, const char *type, int ty, int stream,
			  int *by_cols, struct astra_buf *out, struct astra_buf *why);

/*
 * astra_ir_lower_stencil (lower-nest.c) writes, for a lifted 2-D grid with
 * a thread per element whose stores read an input at places shifted by
 * at most 2 rows and columns (a stencil), a kernel with k's signature
 * that stages each such input in a shared tile with its halo per 32 x 8
 * block (only the elements the original's guarded threads read), then
 * computes and stores as the original under its guard.  block =
 * dim3(32, 8), any 2-D grid.  Returns 0, or -1 with why.
 */
int astra_ir_lower_stencil(const struct astra_ir *ir, const struct astra_kernel *k, const char *type,
			   struct astra_buf *out, struct astra_buf *why);

/*
 * astra_ir_lower_map (lower-map.c) writes, for a lifted element-wise map
 * of a 2-D space (a thread per element of a 2-D grid, or a tile's rows
 * per thread; no reduction, every store per element along the
 * row) or of a flat space (astra_ir_flat_space: taken as its one row),
 * a kernel with k's signature that gives each thread 4 consecutive
 * columns of a row: the inputs read along the row loaded 4 at a time
 * where aligned (16 bytes for float), the stores likewise, a group at the
 * guarded range's border done column by column under the original's
 * guard; the groups in a grid-stride loop over the whole grid: any grid,
 * any 1-D block.  Returns 0, or -1 with why.
 */
int astra_ir_lower_map(const struct astra_ir *ir, const struct astra_kernel *k, const char *type,
		       struct astra_buf *out, struct astra_buf *why);
/*
 * astra_ir_lower_strip (lower-map.c) writes the same map with each
 * thread's 4 columns over ASTRA_STRIP_ROWS consecutive rows (a strip),
 * for a map that reads some input at several rows (a stencil: out[r, c]
 * from in[r - 1 .. r + 1, ...]): every place the strip reads is loaded
 * once, so an input row is read once per strip instead of once per
 * output row; a strip at a border element by element under the
 * original's guard.  Any grid, any 1-D block.  Returns 0, or -1 with why
 * (a flat space, or no input read at several rows).
 */
#define ASTRA_STRIP_ROWS 4
int astra_ir_lower_strip(const struct astra_ir *ir, const struct astra_kernel *k, const char *type,
			 struct astra_buf *out, struct astra_buf *why);
/* 1 when ir is a flat space of elements: a thread per element or a grid-stride loop, no loop over k. */
int astra_ir_flat_space(const struct astra_ir *ir);

#endif
