/*
 * chunk-int.h - what the three files of the chunk rewrite share (inside
 * rules/ only): the state of one rewrite (struct ck: its loop, its
 * accesses and their groups) and the functions one file calls in
 * another.  chunk-scan.c classifies indices and collects a loop's
 * accesses into groups; chunk-gen.c writes a loop's chunked text;
 * chunk.c finds the loops, the register cache and the guard form, and is
 * the entry (rules/chunk.h).
 */
#ifndef ASTRA_RULES_CHUNK_INT_H
#define ASTRA_RULES_CHUNK_INT_H

#include "lib/buf.h"
#include "rules/chunk.h"
#include "rules/facts.h"
#include "rules/helpers.h"

#define NONE ((size_t)-1)
#define MAX_GROUPS 24

enum cls_kind { C_INV, C_UNIT, C_VARY };

struct ck; /* the state of one rewrite */

struct access {
	struct astra_expr *e;   /* the INDEX node */
	int read, write, cond;
	int group;
	int lane;               /* stride-2 groups: which element of the pair (0, 1) */
};

struct group {
	const struct astra_param *param;
	char *base;             /* the pointer expression visible at the chunk's start */
	char *index;            /* the index for element 0 of the chunk (loop index replaced) */
	char *key;
	char *elem;             /* element type */
	int reads, writes, uncond_reads, cond_writes;
	char mode;              /* 'R' load, 'W' store, 'X' load and store, 0 scalar */
	int ldg;
	int cached;             /* the register cache slot for this data, -1: none */
	int first;              /* cached: this loop loads the slot (later loops reuse it) */
	int stride;             /* 1, or 2 for interleaved pairs x[2*i], x[2*i+1] */
	int lanes_read, lanes_written; /* stride 2: bit 0 and bit 1 for the pair's elements */
	char *reg;              /* register array to index with [k]; NULL: <pfx>_v<group> */
};

/* One loop (or the guarded body) being rewritten. */
struct unit {
	struct astra_stmt *stmt;     /* the for statement, or the guard if */
	struct astra_stmt *body;     /* BODY (for guard mode form B: the first statement of it) */
	size_t body_off, body_end;   /* bytes of BODY's text */
	char *var, *var_type;        /* loop index and its declared type */
	char *start, *limit, *stride;/* expressions (text) */
	struct access *acc;
	size_t nr_acc, alloc_acc;
	struct group groups[MAX_GROUPS];
	int nr_groups;
	struct astra_vec divisors;   /* D of i / D and i % D */
	int vectorized;              /* number of vector groups */
	char *prologue;              /* guard mode: declarations moved into the body */
	int multi;                   /* BODY is u->body and its following siblings */
	struct astra_stmt **stmts;   /* BODY's top-level statements */
	size_t nr_stmts, alloc_stmts;
	char *hoist;                 /* per statement: 1 when hoisted out of the per-element loop */
	struct astra_vec hnames;     /* locals the hoisted statements define */
	struct astra_param fake[8];  /* pointers chosen by a chunk-invariant expression */
	int nr_fake;
	int unresolved_reads, unresolved_writes; /* through local pointers the rules cannot follow */
	int loads_may_alias;         /* a write goes through something other than a known parameter */
	const struct astra_param *written[16]; /* parameters BODY writes (found before the analysis) */
	int lane_loop;               /* spread over a warp's lanes */
	int nr_written;
};

struct ck {
	struct astra_rk *rk;
	struct astra_facts f;
	struct astra_syn *syn;
	const struct astra_chunk_opts *o;
	struct astra_buf *why;
	struct unit *u;              /* the unit being analysed */
	char *pfx;                   /* name prefix of generated variables */
	int ept;
	int fail;                    /* set with why when the unit must be declined */
};

void astra_chunk_add_body(struct ck *c, const char *text, int ind, struct astra_buf *b);
char *astra_chunk_addr(struct group *g, const char *i0);
int astra_chunk_analyse(struct ck *c);
size_t astra_chunk_body_t0(struct ck *c);
size_t astra_chunk_body_t1(struct ck *c);
int astra_chunk_body_text2(struct ck *c, const char *elem_k, struct astra_buf *out, int vector, int keep_hoisted);
char *astra_chunk_bytes_expr(struct ck *c, struct group *g);
void astra_chunk_find_dead(struct ck *c);
int astra_chunk_gen_chunk(struct ck *c, const char *i0, int ind, struct astra_buf *b);
int astra_chunk_gen_loop(struct ck *c, struct astra_buf *b);
int astra_chunk_has_side_effects(struct ck *c, size_t t0, size_t t1);
void astra_chunk_indent(struct astra_buf *b, int n);
int astra_chunk_line_indent(struct ck *c, size_t off);
int astra_chunk_replaced(struct ck *c, const struct access *a);
int astra_chunk_text_mentions(const char *text, const char *name);
int astra_chunk_tok_is_var(struct ck *c, size_t t);

#endif
