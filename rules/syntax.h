/*
 * syntax.h - the rules engine's own view of a kernel's text: tokens,
 * statements and expressions.
 *
 * Rules rewrite text, and a combination of rules rewrites text that an
 * earlier rule produced, which libclang never saw.  So the rules re-read
 * the current text of the kernel with this small C++ reader: a lexer, a
 * statement parser for function bodies and a precedence-climbing
 * expression parser.  It understands the subset of CUDA C++ that kernels
 * are written in; whatever it cannot classify becomes an "other" node, and
 * the rules decline to touch code they cannot see into.  It never judges
 * validity: nvcc does that, and the verifier judges meaning.
 *
 * Everything here points into the text it was built from (offsets and
 * token indices); the text must outlive the view.  Nodes are owned by the
 * struct astra_syn and freed by astra_syn_release().
 */
#ifndef ASTRA_SYNTAX_H
#define ASTRA_SYNTAX_H

#include <stddef.h>

#include "lib/buf.h"

enum astra_syn_tok_kind {
	SYN_IDENT,   /* identifiers and keywords */
	SYN_NUMBER,
	SYN_STRING,
	SYN_CHAR,
	SYN_PUNCT,
	SYN_PP,      /* a whole preprocessor line, e.g. "#pragma unroll" */
};

struct astra_syn_tok {
	enum astra_syn_tok_kind kind;
	size_t off, len;          /* bytes in the text */
};

enum astra_stmt_kind {
	STMT_BLOCK,     /* { ... }: kids are the statements */
	STMT_EXPR,      /* expression; */
	STMT_DECL,      /* declaration; */
	STMT_IF,        /* kids[0] then, kids[1] else (or absent); cond in a0..a1 */
	STMT_FOR,       /* init a0..a1, cond b0..b1, incr c0..c1 (token ranges, no ';'), kids[0] body */
	STMT_WHILE,     /* cond a0..a1, kids[0] body */
	STMT_DO,        /* kids[0] body, cond a0..a1 */
	STMT_SWITCH,    /* cond a0..a1, kids[0] body */
	STMT_RETURN,
	STMT_BREAK,
	STMT_CONTINUE,
	STMT_GOTO,
	STMT_LABEL,     /* case x:, default:, name: */
	STMT_PP,        /* a preprocessor line (#pragma unroll) */
	STMT_EMPTY,     /* ; */
	STMT_OTHER,     /* anything else (asm, a range-for, ...) */
};

struct astra_stmt {
	enum astra_stmt_kind kind;
	size_t t0, t1;                 /* tokens [t0, t1) of the whole statement */
	size_t a0, a1, b0, b1, c0, c1; /* parts, see the kinds */
	struct astra_stmt **kids;
	size_t nr_kids, alloc_kids;
	struct astra_stmt *parent;
};

enum astra_expr_kind {
	EX_IDENT,       /* a name, possibly qualified (std::max) */
	EX_LIT,         /* number, string or char literal */
	EX_PAREN,       /* ( a ) */
	EX_UNARY,       /* op a (op token at `op`) incl. sizeof */
	EX_POSTFIX,     /* a op */
	EX_BINARY,      /* a op b */
	EX_ASSIGN,      /* a op= b */
	EX_COND,        /* a ? b : c */
	EX_CALL,        /* a ( args ) */
	EX_INDEX,       /* a [ b ] */
	EX_MEMBER,      /* a . name / a -> name (name token at `op` + 1) */
	EX_CAST,        /* (type) a, static_cast<type>(a): type tokens in ty0..ty1 */
	EX_COMMA,       /* a , b */
	EX_BRACE,       /* { ... } initializer list */
	EX_OTHER,
};

struct astra_expr {
	enum astra_expr_kind kind;
	size_t t0, t1;                  /* tokens of the whole expression */
	size_t op;                      /* operator token (unary/binary/assign/member/postfix) */
	size_t ty0, ty1;                /* cast: the type's tokens */
	struct astra_expr *a, *b, *c;
	struct astra_expr **args;
	size_t nr_args, alloc_args;
	struct astra_expr *parent;
};

/* One declarator of a declaration statement: `T *p = init`, `float s[32]`. */
struct astra_decl {
	size_t ty0, ty1;        /* the type specifier tokens shared by all declarators */
	size_t name;            /* token of the declared name */
	size_t ptr0, ptr1;      /* declarator tokens before the name (`*`, `&`, `__restrict__`) */
	size_t dim0, dim1;      /* array dimension tokens inside [ ], or 0,0 */
	size_t init0, init1;    /* initializer tokens after `=`, or 0,0 */
	int is_array;
};

struct astra_syn {
	const char *text;
	size_t len;
	struct astra_syn_tok *toks;
	size_t nr_toks, alloc_toks;
	/* Type names known besides the builtins (template parameters...). */
	char **types;
	size_t nr_types, alloc_types;
	/* The kernel, once astra_syn_parse_kernel() succeeded. */
	size_t name_tok;                /* the kernel's name */
	size_t params0, params1;        /* tokens inside the parameter list's parentheses */
	struct astra_stmt *body;        /* the body block */
	/* Every node, for release. */
	struct astra_stmt **stmts;
	size_t nr_stmts, alloc_stmts;
	struct astra_expr **exprs;
	size_t nr_exprs, alloc_exprs;
};

/* Lex text into syn (syn is initialized by the call).  Returns 0 or -1. */
int astra_syn_lex(struct astra_syn *syn, const char *text, size_t len);
void astra_syn_release(struct astra_syn *syn);
/* Add a type name (template parameter, typedef) the parser should know. */
void astra_syn_add_type(struct astra_syn *syn, const char *name);

/*
 * Find the __global__ function in the lexed text and parse its body.
 * Returns 0, or -1 when the text is not a kernel definition this parser
 * can read.
 */
int astra_syn_parse_kernel(struct astra_syn *syn);

/* Token helpers. */
int astra_syn_is(const struct astra_syn *syn, size_t i, const char *s);
int astra_syn_is_ident(const struct astra_syn *syn, size_t i);
/* The token's text in a malloc'd string. */
char *astra_syn_tokstr(const struct astra_syn *syn, size_t i);
/* Index of the bracket matching the opening one at i, or (size_t)-1. */
size_t astra_syn_match(const struct astra_syn *syn, size_t i);
/* Byte range of tokens [t0, t1): from the first token's start to the last one's end. */
size_t astra_syn_off(const struct astra_syn *syn, size_t t);
size_t astra_syn_end(const struct astra_syn *syn, size_t t);
/* The source text of tokens [t0, t1), malloc'd (as written, comments included). */
char *astra_syn_text(const struct astra_syn *syn, size_t t0, size_t t1);
/* Index of the first token equal to s in [t0, t1), or (size_t)-1. */
size_t astra_syn_find(const struct astra_syn *syn, size_t t0, size_t t1, const char *s);
/* Does the identifier name occur as a token in [t0, t1)? */
int astra_syn_mentions(const struct astra_syn *syn, size_t t0, size_t t1, const char *name);
/* Is name a type the parser knows (builtin CUDA/C types or added ones)? */
int astra_syn_is_type_name(const struct astra_syn *syn, const char *name, size_t len);

/*
 * Parse tokens [t0, t1) as one expression (commas included).  Returns NULL
 * when the tokens are not an expression this parser can read.
 */
struct astra_expr *astra_syn_expr(struct astra_syn *syn, size_t t0, size_t t1);

/*
 * The declarators of a STMT_DECL statement (or of a for-init range
 * [t0, t1) that is a declaration).  Returns how many were appended to
 * *out (a malloc'd array the caller frees), 0 when the tokens are not a
 * declaration this parser can read.
 */
size_t astra_syn_decls(const struct astra_syn *syn, size_t t0, size_t t1, struct astra_decl **out);
/* Does [t0, t1) look like a declaration (type then a name)? */
int astra_syn_looks_like_decl(const struct astra_syn *syn, size_t t0, size_t t1);

/*
 * The children of an expression in token order (a, b, c and call
 * arguments); returns how many (at most 3 + nr_args), into kids.
 */
size_t astra_expr_kids(const struct astra_expr *e, struct astra_expr **kids, size_t max);
/* Walk e and everything below it, pre-order; fn returns non-zero to stop. */
typedef int (*astra_expr_fn)(struct astra_expr *e, void *data);
int astra_expr_walk(struct astra_expr *e, astra_expr_fn fn, void *data);

/*
 * Rewrite an expression bottom-up.  For each node, its children are
 * rewritten first; fn then gets the node and the children's new texts
 * (in astra_expr_kids() order) and returns the node's new text (malloc'd)
 * or NULL to keep the node's own text with the children's texts spliced
 * in.  Returns the new text of e (malloc'd).
 */
typedef char *(*astra_expr_rw_fn)(struct astra_syn *syn, struct astra_expr *e, char **kids,
				  size_t nr_kids, void *data);
char *astra_expr_rewrite(struct astra_syn *syn, struct astra_expr *e, astra_expr_rw_fn fn, void *data);
/* The text of e with its children's texts replaced by kids (splice only). */
char *astra_expr_splice(const struct astra_syn *syn, const struct astra_expr *e, char **kids, size_t nr_kids);

/* Walk every statement below s (s included), depth first, pre-order. */
typedef int (*astra_stmt_fn)(struct astra_stmt *s, void *data);
int astra_syn_walk(struct astra_stmt *s, astra_stmt_fn fn, void *data);

/* Is e, inside any parentheses, the single identifier name? */
int astra_syn_is_name(const struct astra_syn *syn, const struct astra_expr *e, const char *name);
/*
 * The argmax test of a selection loop: find `best < 0 || VAL > bv` (either
 * operand order of the ||) among the && structure of cond; its VAL, or NULL.
 */
struct astra_expr *astra_syn_argmax_value(const struct astra_syn *syn, struct astra_expr *cond, const char *best,
					  const char *bv);

/*
 * Edits: replace byte ranges of the text.  astra_syn_apply() builds the
 * text of [from, to) with every edit inside that range applied (edits must
 * not overlap; an insertion has start == end) and appends it to out.
 */
struct astra_syn_edit {
	size_t start, end;
	char *text;
};

struct astra_syn_edits {
	struct astra_syn_edit *items;
	size_t nr, alloc;
};

void astra_syn_edit(struct astra_syn_edits *e, size_t start, size_t end, const char *text);
void astra_syn_edit_owned(struct astra_syn_edits *e, size_t start, size_t end, char *text);
void astra_syn_edits_release(struct astra_syn_edits *e);
/* Returns -1 when two edits overlap. */
int astra_syn_apply(const char *text, size_t from, size_t to, const struct astra_syn_edits *e,
		    struct astra_buf *out);

#endif
