/*
 * canon-int.h - what the three files of the rules' wording share (inside
 * rules/ only): a run's state (struct cn), the kinds of rewrite it notes,
 * and the functions one file calls in another.  canon.c: the utilities
 * and the passes in order; canon-inline.c: macros, constants and
 * __device__ functions put in place; canon-forms.c: the index, the
 * bounds check, early returns, while loops, strides, 2-D blocks, staged
 * copies, maxima and minima.
 */
#ifndef ASTRA_RULES_CANON_INT_H
#define ASTRA_RULES_CANON_INT_H

#include <stddef.h>

#include "lib/buf.h"
#include "rules/canon.h"
#include "rules/facts.h"

#define NONE ((size_t)-1)

struct cn {
	struct astra_rk *rk;
	struct astra_buf *notes;
	int count;
	unsigned done;          /* bits of the kinds of rewrites made, for notes */
	int serial;             /* for fresh names */
};

enum {
	DID_MACRO = 1 << 0, DID_CONST = 1 << 1, DID_INLINE = 1 << 2, DID_INDEX = 1 << 3, DID_GUARD = 1 << 4,
	DID_WHILE = 1 << 5, DID_STRIDE = 1 << 6, DID_MINMAX = 1 << 7, DID_ELSE = 1 << 8,
	DID_STAGE = 1 << 9, DID_BLOCK2D = 1 << 10,
};

void astra_canon_add_reindented(struct astra_buf *b, const char *text, const char *ind);
int astra_canon_apply_edits(struct cn *C, struct astra_syn_edits *e, unsigned did);
int astra_canon_body_bytes(const char *text, const char *name, size_t *from, size_t *to);
int astra_canon_count_name(const char *text, const char *name);
char *astra_canon_fresh(struct cn *C, const char *pfx);
char *astra_canon_indent_at(const char *text, size_t off);
int astra_canon_is_member(const struct astra_syn *syn, size_t t);
int astra_canon_pass_block2d(struct cn *C);
int astra_canon_pass_consts(struct cn *C);
int astra_canon_pass_else(struct cn *C);
int astra_canon_pass_guard(struct cn *C);
int astra_canon_pass_index(struct cn *C);
int astra_canon_pass_inline(struct cn *C);
int astra_canon_pass_macros(struct cn *C);
int astra_canon_pass_minmax(struct cn *C);
int astra_canon_pass_stage(struct cn *C);
int astra_canon_pass_stride(struct cn *C);
int astra_canon_pass_while(struct cn *C);
int astra_canon_pure_tokens(const struct astra_syn *syn, size_t t0, size_t t1);
char *astra_canon_subst_names(const char *text, char **names, char **values, size_t n);

#endif
