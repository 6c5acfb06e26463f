/*
 * facts.h - what the rules need to know about a kernel body beyond its
 * syntax: which locals are set once, which expressions are thread indices,
 * what type an expression has, which pointers are read and written.
 *
 * Kept apart from syntax.c (which only reads text) and from the rules
 * (which only decide and rewrite) because most rules ask the same
 * questions.  The answers are conservative: "unknown" makes a rule
 * decline, never guess.
 */
#ifndef ASTRA_FACTS_H
#define ASTRA_FACTS_H

#include "rules/rule.h"

/* A local variable of the kernel body. */
struct astra_local {
	char *name;
	struct astra_stmt *stmt;  /* the declaring statement (a STMT_FOR for a for-init) */
	struct astra_decl d;
	int nr_decls;             /* how often the name is declared in the body */
	int same_type;            /* every declaration has the same type text */
	int assigned;             /* assigned, incremented or address taken after its declaration */
	int is_shared;            /* declared __shared__ */
	int is_pointer;           /* declarator has a `*` */
};

struct astra_facts {
	struct astra_rk *rk;
	struct astra_syn *syn;
	struct astra_local *locals;
	size_t nr_locals, alloc_locals;
};

/* Build the facts of rk (parsed by the call).  0, or -1 when rk does not parse. */
int astra_facts_build(struct astra_facts *f, struct astra_rk *rk);
void astra_facts_release(struct astra_facts *f);

/* The local named by token t / by name, or NULL. */
const struct astra_local *astra_facts_local(const struct astra_facts *f, const char *name, size_t len);
const struct astra_local *astra_facts_local_tok(const struct astra_facts *f, size_t t);
/* A local declared once and never changed afterwards. */
int astra_facts_is_const_local(const struct astra_facts *f, const char *name, size_t len);
/* Is the identifier at token t assigned (=, op=, ++, --, &) anywhere in [t0, t1)? */
int astra_facts_assigned_in(const struct astra_facts *f, const char *name, size_t len, size_t t0, size_t t1);

/*
 * The value of an integer constant expression (literals, + - * / % << >>,
 * casts, parentheses, set-once locals initialized so): 0 and *v, or -1.
 */
int astra_facts_const_int(const struct astra_facts *f, const struct astra_expr *e, long long *v);

/* What an expression computes in terms of the thread grid (1-D, x only). */
enum astra_tix {
	TIX_NONE,
	TIX_TID,     /* threadIdx.x */
	TIX_BID,     /* blockIdx.x */
	TIX_BDIM,    /* blockDim.x */
	TIX_GDIM,    /* gridDim.x */
	TIX_GTID,    /* blockIdx.x * blockDim.x + threadIdx.x */
	TIX_GSTRIDE, /* blockDim.x * gridDim.x */
	TIX_LANE,    /* threadIdx.x % 32, threadIdx.x & 31 */
	TIX_WARP,    /* 32, warpSize */
	TIX_GWARP,   /* the global warp index: (blockIdx.x * blockDim.x + threadIdx.x) >> 5 or / 32 */
	TIX_WID,     /* the warp's index in its block: threadIdx.x >> 5 or / 32 */
};
/* Classify e, looking through casts, parentheses and set-once locals. */
enum astra_tix astra_facts_tix(const struct astra_facts *f, const struct astra_expr *e);
/* The same in the y dimension: TIX_TID is threadIdx.y, TIX_GTID blockIdx.y * blockDim.y + threadIdx.y. */
enum astra_tix astra_facts_tix_y(const struct astra_facts *f, const struct astra_expr *e);
/* Does [t0, t1) mention threadIdx/blockIdx/blockDim/gridDim (.y/.z when yz)? */
int astra_facts_mentions_grid(const struct astra_facts *f, size_t t0, size_t t1, int yz_only);

enum astra_type {
	TY_UNKNOWN,
	TY_INT,
	TY_FLOAT,
	TY_DOUBLE,
	TY_HALF,
	TY_BF16,
	TY_OTHER,
};
/* The type of a C++ type's text ("const float" -> TY_FLOAT), T through the pragma's types. */
enum astra_type astra_facts_type_of_text(const struct astra_facts *f, const char *type);
/* The type of an expression, or TY_UNKNOWN. */
enum astra_type astra_facts_type(struct astra_facts *f, const struct astra_expr *e);

/*
 * A pointer the kernel indexes: a pointer parameter, or a local pointer set
 * once to `param + offset` / `&param[offset]` (offset is text; "" for none).
 * Returns the parameter, or NULL when name is neither.
 */
const struct astra_param *astra_facts_pointer(const struct astra_facts *f, const char *name, size_t len,
					      char **offset);

/*
 * expr (C++ text) with the kernel's set-once scalar locals replaced by their
 * initializers until only parameters (and constants) remain; NULL when a
 * local is not set once.  For launch expressions.
 */
char *astra_facts_to_params(const struct astra_facts *f, const char *expr);

/*
 * The expression parts of the statements under s (s included): expression
 * statements, initializers, conditions, for-headers, return values.  fn
 * gets each part's token range and its parse (NULL when the parser cannot
 * read it); non-zero stops the walk and is returned.
 */
typedef int (*astra_part_fn)(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1,
			     struct astra_expr *e, void *data);
int astra_facts_each_part(struct astra_facts *f, struct astra_stmt *s, astra_part_fn fn, void *data);
/*
 * Rewrite every expression part under s with fn (see astra_expr_rewrite)
 * and add an edit for each part whose text changed.  Returns the number of
 * parts changed; *unparsed counts the parts the parser could not read.
 */
int astra_facts_rewrite(struct astra_facts *f, struct astra_stmt *s, astra_expr_rw_fn fn, void *data,
			struct astra_syn_edits *edits, int *unparsed);

#endif
