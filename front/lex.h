/*
 * lex.h - the one C++ lexer of astra-cc for text that libclang does not
 * see: variants an optimizer wrote, the rules' working copies, macro
 * bodies being expanded, launch expressions.
 *
 * It knows what a C++ reader must know to find tokens: comments, string
 * and character literals (with encoding prefixes and raw strings),
 * pp-numbers, identifiers, punctuators (the longest match: `>>=`, `->`,
 * `::`, ...), backslash-newline splices, and preprocessor lines (a `#` that
 * begins a logical line starts a directive that runs to the first newline
 * not spliced; it is one token).  It never judges validity.  Extraction
 * (front/extract.c) reads a whole file through libclang's tokens instead;
 * everything else that reads kernel code reads it through this lexer.
 *
 * Offsets are byte offsets into the text; lines are 1-based.
 */
#ifndef ASTRA_LEX_H
#define ASTRA_LEX_H

#include <stddef.h>

enum astra_lex_kind {
	ASTRA_LEX_IDENT,   /* identifiers and keywords */
	ASTRA_LEX_NUMBER,  /* pp-numbers: 1, 0x1F, 1e-3f, 256u */
	ASTRA_LEX_STRING,  /* "..." with its prefix, raw strings included */
	ASTRA_LEX_CHAR,    /* '...' with its prefix */
	ASTRA_LEX_PUNCT,
	ASTRA_LEX_PP,      /* a whole preprocessor line, continuations included */
	ASTRA_LEX_COMMENT, /* only with ASTRA_LEX_COMMENTS */
};

struct astra_lex_tok {
	enum astra_lex_kind kind;
	size_t off, len;
	unsigned line;
};

enum astra_lex_flags {
	ASTRA_LEX_COMMENTS = 1 << 0,     /* keep comments as tokens */
	ASTRA_LEX_ONE_CHAR = 1 << 1,     /* each punctuation character is a token of its own */
	ASTRA_LEX_LENIENT = 1 << 2,      /* an unterminated comment or literal runs to the end: no error */
	ASTRA_LEX_NO_DIRECTIVES = 1 << 3,/* `#` is punctuation wherever it is (macro bodies) */
};

struct astra_lexed {
	struct astra_lex_tok *toks;
	size_t nr, alloc;
	const char *error;          /* what stopped the lexer, or NULL */
	unsigned error_line;
	size_t error_off;
};

/*
 * Lex text[0, len) into out (initialized by the call).  Returns 0, or -1
 * when a comment or literal is not terminated (out->error says which and
 * where; the tokens before it are kept).
 */
int astra_lex(const char *text, size_t len, unsigned flags, struct astra_lexed *out);
void astra_lexed_release(struct astra_lexed *l);

/* Does token t (of text) spell s exactly? */
int astra_lex_is(const char *text, const struct astra_lex_tok *t, const char *s);

/* Is c a character of an identifier (letters, digits, _, $)? */
int astra_lex_ident_char(int c);

#endif
