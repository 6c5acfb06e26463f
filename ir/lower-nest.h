/*
 * lower-nest.h - what the loop-nest lowerings of ir/ share (inside ir/
 * only): the work record of a lowering and the helpers that read the IR
 * and print it as CUDA.  lower-nest.c (contractions and the helpers),
 * lower-matvec.c (matrix-vector products), lower-stencil.c (stencils).
 */
#ifndef ASTRA_IR_LOWER_NEST_H
#define ASTRA_IR_LOWER_NEST_H

#include "ir/ir.h"
#include "lib/buf.h"

#define MAX_OPERANDS 4
#define MAX_LOADS 32
/* register blocking: 16 x 16 threads, each tm x tn outputs RB_T apart (lower.h's astra_contract_rb) */
#define RB_T 16

struct operand {
	const struct astra_ir_node *load;
	const char *outer;           /* "r" or "c" */
	int k_unit;                  /* the index has unit stride in k: threadIdx.x walks k when loading */
};

struct nw {
	const struct astra_ir *ir;
	const struct astra_kernel *k;
	const struct astra_ir_node *red;
	unsigned red_line;
	struct operand ops[MAX_OPERANDS];
	size_t nr_ops;
	struct astra_ir_arena ar;
	struct astra_buf *why;
	int bad;
	/* while emitting: the C names of the logical indices, and whether loads of the sum read tiles */
	const char *name_r, *name_c, *name_k;
	int tiles;                   /* 1: a thread's tile row or column; 2: register-blocked */
	const char *acc;             /* the sum's register, "astra_acc" if NULL */
	/* a stencil's loads read from its halo tiles: each load, the text it becomes */
	const struct astra_ir_node *rep_load[MAX_LOADS];
	char *rep_text[MAX_LOADS];
	size_t nr_rep;
};

/* Refuse the lowering: why, at line (the kernel's file). */
void astra_nest_refuse(struct nw *w, unsigned line, const char *what);
/* 1 when the atom occurs in n (a reduction over it included). */
int astra_nest_depends(const struct astra_ir_node *n, const char *atom);
int astra_nest_has_kind(const struct astra_ir_node *n, enum astra_ir_kind kind);
int astra_nest_same_expr(const struct astra_ir_node *a, const struct astra_ir_node *b);
/* n with the atom `from` replaced by `to` (a copy in w's arena). */
struct astra_ir_node *astra_nest_subst(struct nw *w, const struct astra_ir_node *n, const char *from,
				       struct astra_ir_node *to);
int astra_nest_unit_in(struct nw *w, const struct astra_ir_node *n, const char *atom);
/* n with the atom replaced by (atom + d): a load d rows or columns on (n itself for 0). */
const struct astra_ir_node *astra_nest_moved(struct nw *w, const struct astra_ir_node *n, const char *atom, int d);
/* Are a and b equal as index polynomials (a - b prints as 0)? */
int astra_nest_same_poly(struct nw *w, const struct astra_ir_node *a, const struct astra_ir_node *b);
int astra_nest_loads_elsewhere(const struct astra_ir_node *n, const char *buf, const struct astra_ir_node *at);
/*
 * The loads of n read along the row (unit stride in c, no gather),
 * outside a condition's branches (loads every thread does), added to
 * v[0..nr) once each (at most MAX_LOADS); returns the new count
 * (lower-map.c).
 */
size_t astra_nest_row_loads(struct nw *w, const struct astra_ir_node *n, const struct astra_ir_node **v, size_t nr);
/*
 * Each store's value into `const type astra_vJ`, then the stores from
 * them (every value read before any store writes), one per line after
 * indent; a store that skip (if not NULL) names is left out.
 */
void astra_nest_emit_stores(struct nw *w, const char *type, const char *indent,
			    int (*skip)(const struct astra_ir *ir, const struct astra_ir_store *s), struct astra_buf *b);
/* n as CUDA text, the logical indices by w's names, loads by tiles where w says. */
void astra_nest_emit(struct nw *w, const struct astra_ir_node *n, struct astra_buf *out);

#endif
