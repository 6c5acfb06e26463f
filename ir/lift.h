/*
 * lift.h - the lifter's working state, shared by lift.c (values,
 * expressions, the mapping of threads to logical indices, the result) and
 * lift-stmt.c (statements, loops, reductions, guards).  Internal to ir/.
 *
 * The lifter is a symbolic evaluator: it runs the kernel's body once,
 * with every local variable holding an IR expression of what it computes.
 * Thread and block indices are atoms ("tid.x", "bid.x", ...); when a
 * value is one of the known thread-to-work mappings it becomes a logical
 * index ("i" flat, "r" row, "c" column) and the mapping is remembered.
 * Loops over a row's columns bind their variable to "c"; an accumulation
 * inside them is a reduction, complete when the loop is a thread's own
 * (0..cols), partial when threads share the columns until the threads'
 * parts are combined (warp shuffles, a shared-memory tree, a per-warp
 * shared array, an atomicAdd).  Anything else stops with a reason.
 */
#ifndef ASTRA_IR_LIFT_H
#define ASTRA_IR_LIFT_H

#include <setjmp.h>

#include "ir/ir.h"
#include "ir/parse.h"

struct lvar {
	const char *name;
	const char *type;            /* as declared (qualifiers included), or NULL: a parameter */
	struct astra_ir_node *val;   /* NULL: declared, not set */
	int shared;                  /* a __shared__ variable or array */
	int array;
	int warp_slots;              /* shared: holds a value per warp (stored at the warp's index) */
	const char *at;              /* shared: where this thread stored its plain value ("[i][j]"), or NULL */
	int loop_depth;              /* the loop nesting it was declared at */
	struct lvar *alias;          /* a helper's parameter naming the caller's shared array */
	int loop_reads;              /* reads in the innermost loop while it is outer to it */
	int acc_loop;                /* accumulated in the loop of this depth (1-based), still open: 0 if none */
	int nr_stored;               /* shared: plain stores into it (statements, as lifted) */
	int barrier_at;              /* shared: the lifter's barrier count at its last plain store */
};

enum { LOOP_SEQ, LOOP_SPREAD, LOOP_GRID };

struct loopctx {
	const char *axis;            /* "c" or "i" or "r", or "k": a thread's own loop in a 2-D grid (a contraction) */
	int kind;                    /* LOOP_SEQ: a thread's own loop; LOOP_SPREAD/GRID: shared by threads */
	int rows;                    /* a loop over rows (a block per row, grid-stride): no reductions */
};

struct lifter {
	const struct astra_kernel *k;
	struct astra_ir *ir;
	struct astra_ir_arena *ar;
	struct astra_buf *why;
	jmp_buf fail;
	struct lvar *vars;
	size_t nr_vars, alloc_vars;
	struct loopctx loops[8];
	int nr_loops;
	int twod;                    /* the kernel names .y of threadIdx/blockIdx */
	int lanes_x;                 /* 2-D rows: blockDim.x from the pragma's launch (0: unknown) */
	const char *block_x, *block_y; /* the pragma's block dim3(x, y), as written, or NULL */
	struct astra_ir_node *tile_t; /* inside a loop over a tile's rows (lift-tile.c): the tile's height */
	const char *tile_rows;       /* such a loop was lifted: the tile's height, as printed */
	const char *tile_var;        /* its variable's name, for reasons */
	struct astra_ir_node *ext_i, *ext_r, *ext_c, *ext_k; /* the bounds checked (or looped to) */
	struct astra_ir_node *lo_i, *lo_r, *lo_c;  /* lower bounds checked (a stencil's border), NULL: 0 */
	struct astra_ir_node *split;  /* the flat index was split into r = i / split, c = i % split */
	int uses_c;
	int c_loop;                  /* a loop over columns was lifted */
	int depth;                   /* helper inlining depth */
	const char *helper;          /* the helper being lifted, for reasons */
	struct astra_ir_node *ret;   /* a helper's return value */
	int returned;                /* a return was lifted: the rest of the body never runs */
	int in_shfl;                 /* lifting a shuffle loop's body: partial values may be read */
	int barriers;                /* __syncthreads() (or the block's cg::sync) lifted so far */
	struct astra_ir_node *sel_bound; /* the bound of a summed `idx < n ? x[idx] : 0` taken as idx's extent */
	struct astra_ir_node *segment;   /* per-block partial results: the block's size, the row length (lift-share.c) */
	unsigned line;               /* the statement being lifted */
};

/* lift.c */
int lift_kernel(const struct astra_kernel *k, struct astra_ir *ir, struct astra_buf *why);
ASTRA_NORETURN void lift_fail(struct lifter *L, const char *fmt, ...) ASTRA_PRINTF(2, 3) ;
struct astra_ir_node *lift_eval(struct lifter *L, struct astra_ir_node *n);
struct astra_ir_node *lift_num(struct lifter *L, const char *s);
struct astra_ir_node *lift_atom(struct lifter *L, const char *s);
struct astra_ir_node *lift_bin(struct lifter *L, const char *op, struct astra_ir_node *a, struct astra_ir_node *b);
/* Every store's index and value with atom `from` replaced by `to`. */
void lift_rename_all(struct lifter *L, const char *from, struct astra_ir_node *to);
struct lvar *lift_var(struct lifter *L, const char *name);
struct lvar *lift_declare(struct lifter *L, const char *name);
char *lift_text(const struct astra_ir_node *n);   /* canonical poly text, malloc'd */
int lift_is(const struct astra_ir_node *n, const char *poly_text);
int lift_depends(const struct astra_ir_node *n, const char *atom);
struct astra_ir_node *lift_combine(struct lifter *L, const char *op, int scope, struct astra_ir_node *v);
struct astra_ir_node *lift_bind(struct lifter *L, struct astra_ir_node *v);
void lift_store(struct lifter *L, struct astra_ir_node *lhs, struct astra_ir_node *val, int accumulate);
/* Has this thread stored (not atomically) at the place lhs (`p[i]`, `*p`) before? */
int lift_stored(struct lifter *L, struct astra_ir_node *lhs);
struct astra_ir_node *lift_call(struct lifter *L, struct astra_ir_node *n);
struct astra_ir_node *lift_replace(struct lifter *L, struct astra_ir_node *n, const char *from, struct astra_ir_node *to);
int lift_block_group(struct lifter *L, struct astra_ir_node *call);
struct lvar *lift_shared_base(struct lifter *L, struct astra_ir_node *n);
const char *lift_shared_place(struct lifter *L, struct astra_ir_node *n, struct astra_ir_node **last);

/* lift-tile.c */
void lift_launch_dims(struct lifter *L);
int lift_tile_loop(struct lifter *L, struct astra_ir_node *init, struct astra_ir_node *step, struct astra_ir_node *lim,
		   const char *text);
struct astra_ir_node *lift_tile_row(struct lifter *L, struct astra_ir_node *v);
const char *lift_grid_extent(struct lifter *L, int axis);
int lift_int(struct lifter *L, const char *s, long *v);
struct astra_ir_node *lift_fold(struct lifter *L, struct astra_ir_node *n);

/* lift-share.c: values a block's threads pass to each other */
struct astra_ir_node *lift_share_staged(struct lifter *L, struct lvar *v, const char *place);
int lift_share_swapped(struct lifter *L, struct astra_ir_node **index, struct astra_ir_node **val);
void lift_share_segment(struct lifter *L, struct astra_ir_node *place, struct astra_ir_node **val, int accumulate);
int lift_share_finish(struct lifter *L);

/* lift-stmt.c */
void lift_set_extent(struct lifter *L, const struct astra_ir_node *a, struct astra_ir_node *bound);
void lift_stmt(struct lifter *L, struct astra_ir_stmt *s, int top);
const char *lift_reduce_op(const char *fn);
const char *lift_ext(struct lifter *L, const struct astra_ir_node *n);

#endif
