/*
 * ir.h - what a kernel computes, independent of how its work is spread
 * over threads (doc/lift.md).
 *
 * The IR is small on purpose: a logical iteration space (flat `i`, or
 * rows `r` x columns `c`, with an inner axis `k` that a thread's own loop
 * reduces in a contraction), and the kernel's stores, each
 *
 *     buf[index] = value      or      buf[index] += value   (atomics)
 *
 * where index is an affine function of the logical indices (plus gathers
 * through a load), and value is an expression tree over loads, scalars,
 * numbers, operators, calls of math functions and reductions over a
 * logical axis (sum, max, min).  Conversions (casts, __half2float, ...)
 * are not part of it: the one-line form is about what is computed.
 *
 * Nodes live in an arena (struct astra_ir_arena) and die with it: nothing
 * here frees a single node.  Strings are owned by the arena too.
 *
 * Contract:
 *   astra_ir_lift (lift.c) fills a struct astra_ir from a kernel of the
 *   front end's model, or returns -1 with `why` set to the reason and the
 *   line it concerns (file:line of the kernel's file);
 *   astra_ir_print (print.c) prints the lifted form on one line; two
 *   kernels that compute the same thing print the same line (that is the
 *   tests' comparison), whatever their mapping of work to threads.
 */
#ifndef ASTRA_IR_H
#define ASTRA_IR_H

#include <stddef.h>

#include "front/kernel.h"
#include "lib/buf.h"

enum astra_ir_kind {
	IR_NUM,      /* s: the number as written */
	IR_NAME,     /* s: a scalar parameter, template parameter or constant */
	IR_ATOM,     /* s: "tid.x", "bid.y", "bdim.x", "gdim.x", "lane", ... or a logical index "r", "c" */
	IR_LOAD,     /* s: buffer; a[0]: the flat index */
	IR_BIN,      /* s: operator; a[0] a[1] */
	IR_UN,       /* s: operator; a[0] */
	IR_COND,     /* a[0] ? a[1] : a[2] */
	IR_CALL,     /* s: function; a[]: arguments */
	IR_RED,      /* s: "sum" "max" "min"; axis: "c", "r" or "k"; a[0]: the body; a[1] (nr 2): the seed, the
		      * value the running result starts from when it is not the identity (over k only) */
	IR_PARTIAL,  /* a reduction some threads hold a part of: as IR_RED, with scope */
	IR_PTR,      /* s: a pointer parameter; a[0]: the offset in elements */
	IR_SHARED,   /* s: a __shared__ array or variable of the kernel */
	/* syntax only (parse.c): */
	IR_INDEX,    /* a[0][a[1]] */
	IR_MEMBER,   /* a[0].s (and ->) */
	IR_CAST,     /* s: the type; a[0] */
	IR_ASSIGN,   /* s: "=", "+=", ...; a[0] = a[1] */
	IR_INCDEC,   /* s: "++" "--"; a[0] */
};

/* Scopes of a partial reduction: which threads' parts are combined. */
enum { IR_SCOPE_THREAD, IR_SCOPE_WARP, IR_SCOPE_BLOCK, IR_SCOPE_GRID };

struct astra_ir_node {
	enum astra_ir_kind kind;
	const char *s;
	const char *axis;            /* IR_RED, IR_PARTIAL */
	int scope;                   /* IR_PARTIAL: enum above; IR_PARTIAL read back per warp: +16 */
	struct astra_ir_node **a;
	size_t nr;
	unsigned line;               /* in the kernel's file, 0 if unknown */
};

struct astra_ir_arena {
	void **items;
	size_t nr, alloc;
};

void *astra_ir_alloc(struct astra_ir_arena *ar, size_t n);
const char *astra_ir_strdup(struct astra_ir_arena *ar, const char *s, size_t n);
struct astra_ir_node *astra_ir_node(struct astra_ir_arena *ar, enum astra_ir_kind kind, const char *s,
				    size_t nr, ...);
void astra_ir_arena_release(struct astra_ir_arena *ar);

struct astra_ir_store {
	const char *buf;
	struct astra_ir_node *index;  /* flat index, in logical indices */
	struct astra_ir_node *value;
	int accumulate;               /* 1: atomicAdd (+=) */
	unsigned line;
	int open_loop;                /* lifting: accumulated over k in the loop of this depth, still open */
};

enum astra_ir_mapping {
	IR_MAP_NONE,
	IR_MAP_THREAD,        /* a thread per element: blockIdx.x * blockDim.x + threadIdx.x */
	IR_MAP_THREAD_ROW,    /* a thread per row (the same index, and a loop over the row) */
	IR_MAP_GRID_STRIDE,   /* a grid-stride loop over the elements */
	IR_MAP_BLOCK,         /* a block per row (blockIdx.x) */
	IR_MAP_WARP,          /* a warp per row (the global thread index / 32) */
	IR_MAP_2D_ROWS,       /* 2-D blocks, threadIdx.y selects the row, threadIdx.x its lanes */
	IR_MAP_2D,            /* 2-D grid of 2-D blocks: x is the column, y the row */
	IR_MAP_2D_TILE,       /* 2-D tiles: x the column, y and a loop by blockDim.y the tile's rows */
};

struct astra_ir {
	struct astra_ir_arena arena;
	enum astra_ir_mapping mapping;
	int one_per_thread;           /* a block per row, threadIdx.x is the column */
	const char *rows;             /* extent of r (or of the flat index), as printed */
	const char *cols;             /* extent of c, NULL for a flat space */
	const char *inner;            /* extent of k, the axis a thread's own loop reduces (a contraction), or NULL */
	const char *rows_lo, *cols_lo; /* the first r and c the guards let through (a stencil's border), NULL: 0 */
	struct astra_ir_node *cols_first; /* cols_lo as an expression: a number, or r + d (a triangle, c >= r + d) */
	struct astra_ir_store *stores;
	size_t nr_stores, alloc_stores;
};

/*
 * Lift kernel k.  Returns 0 with *ir filled, or -1 with why holding one
 * line "file:line: reason" (no newline).  ir must be released either way.
 * The last few kernels' results are kept (the same kernel, its text, its
 * launch and place unchanged: planning lifts it once per lowering rule)
 * and handed out as copies.
 */
int astra_ir_lift(const struct astra_kernel *k, struct astra_ir *ir, struct astra_buf *why);
void astra_ir_release(struct astra_ir *ir);
/* dst (uninitialized) becomes a copy of src with its own arena, sharing kept (node.c). */
void astra_ir_copy(struct astra_ir *dst, const struct astra_ir *src);

/* The one-line form: "y[r,c] = x[r,c] * g[c]  (rows=N, cols=K)". */
void astra_ir_print(const struct astra_ir *ir, struct astra_buf *out);
/* One expression, canonically (used by print and by the lifter's comparisons). */
void astra_ir_print_expr(const struct astra_ir_node *n, struct astra_buf *out);

/* What the mapping is called in reports: "a thread per row", ... */
const char *astra_ir_mapping_name(enum astra_ir_mapping m);

#endif
