/*
 * pragma-int.h - what the two files of the pragma parser share (inside
 * front/ only): its tokens, the parser's state, where an expression
 * stops, and the helpers the clauses call.  pragma.c: diagnostics, the
 * lexer, the parser's helpers, the checks, the canonical form;
 * pragma-clauses.c: each clause's grammar and the line's parse.
 */
#ifndef ASTRA_FRONT_PRAGMA_INT_H
#define ASTRA_FRONT_PRAGMA_INT_H

#include <stddef.h>
#include <string.h>

#include "lib/util.h"

#include "front/pragma.h"

enum tkind { T_END, T_IDENT, T_NUMBER, T_STRING, T_PUNCT, T_BAD };

struct tok {
	enum tkind kind;
	const char *s;
	size_t len;
	unsigned line, col;
	int space; /* blanks (or a comment) before it */
};

struct parser {
	struct astra_pragma *p;
	const char *file;
	struct astra_diags *diags;
	struct tok *toks;
	size_t nr, alloc, i;
	int failed;
};

enum stop {
	STOP_COMMA = 1 << 0,    /* , */
	STOP_RPAREN = 1 << 1,   /* ) */
	STOP_RBRACKET = 1 << 2, /* ] */
	STOP_DOTDOT = 1 << 3,   /* .. */
	STOP_ASSIGN = 1 << 4,   /* a blank, then `name =`: the next item of a list */
	STOP_SPACE = 1 << 5,    /* a blank: the next value of a list */
};

int astra_pragma_close_paren(struct parser *P, const char *after);
char *astra_pragma_describe(const struct tok *t);
int astra_pragma_expected(struct parser *P, const char *what);
char *astra_pragma_expr(struct parser *P, unsigned stop, const char *what);
int astra_pragma_fail(struct parser *P, const struct tok *t, const char *fmt, ...) ASTRA_PRINTF(3, 4);
void astra_pragma_lex(struct parser *P, const char *text, unsigned line, unsigned col);
int astra_pragma_list_next(struct parser *P, int blank_separated, const char *after);
const struct tok *astra_pragma_name(struct parser *P, const char *what);
int astra_pragma_open_paren(struct parser *P, const struct tok *kw);

static inline const struct tok *cur(const struct parser *P)
{
	return &P->toks[P->i];
}

static inline const struct tok *peek(const struct parser *P, size_t ahead)
{
	size_t j = P->i + ahead;
	return &P->toks[j < P->nr ? j : P->nr - 1];
}

static inline int is(const struct tok *t, const char *punct)
{
	size_t n = strlen(punct);
	return t->kind == T_PUNCT && t->len == n && !memcmp(t->s, punct, n);
}

static inline int tok_eq(const struct tok *t, const char *s)
{
	return strlen(s) == t->len && !memcmp(s, t->s, t->len);
}

static inline char *tok_str(const struct tok *t)
{
	return xstrndup(t->s, t->len);
}

static inline struct astra_pos pos_of(const struct tok *t)
{
	struct astra_pos pos;
	pos.line = t->line;
	pos.col = t->col;
	return pos;
}

#endif
