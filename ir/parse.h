/*
 * parse.h - a kernel's (or a __device__ helper's) body as statements and
 * expression trees, for the lifter.
 *
 * The text is read through front/lex.h (the one lexer); this is a parser
 * of the small statement language kernels are written in: declarations,
 * expressions, if/else, for, while, return, break/continue, blocks.
 * Preprocessor lines (#pragma unroll) are skipped.  A template call
 * `f<N>(x)` is read as a call of f when f is a function the kernel can
 * see or a cast keyword; any other `<` is less-than.
 *
 * Contract: astra_ir_parse returns the body's block, or NULL with why set
 * ("line N: what"); nodes and statements live in the arena.
 */
#ifndef ASTRA_IR_PARSE_H
#define ASTRA_IR_PARSE_H

#include "ir/ir.h"

enum astra_ir_stmt_kind {
	ST_BLOCK, ST_DECL, ST_EXPR, ST_IF, ST_FOR, ST_WHILE, ST_RETURN, ST_BREAK, ST_CONTINUE, ST_EMPTY,
};

struct astra_ir_stmt {
	enum astra_ir_stmt_kind kind;
	unsigned line;
	/* ST_DECL: one declarator each */
	const char *type;            /* as written, qualifiers included */
	const char *name;
	int is_shared, is_array, is_pointer;
	struct astra_ir_node *init;  /* ST_DECL: initializer or NULL; ST_RETURN: value or NULL */
	struct astra_ir_node *e;     /* ST_EXPR: the expression; ST_IF/ST_WHILE/ST_FOR: the condition */
	struct astra_ir_node *step;  /* ST_FOR */
	struct astra_ir_stmt *first; /* ST_FOR: init statement (or NULL) */
	struct astra_ir_stmt *body;  /* ST_IF: then; ST_FOR, ST_WHILE */
	struct astra_ir_stmt *els;   /* ST_IF */
	struct astra_ir_stmt **kids; /* ST_BLOCK */
	size_t nr_kids;
	const char *text;            /* the statement's first line of text, for reasons */
};

/*
 * Parse text[0, len) from its first `{` to the matching `}`.  line0 is the
 * file line of text's first line; k names the functions and type names
 * the text can use (may be NULL).
 */
struct astra_ir_stmt *astra_ir_parse(struct astra_ir_arena *ar, const char *text, size_t len, unsigned line0,
				     const struct astra_kernel *k, struct astra_buf *why);

#endif
