/*
 * expand.h - the preprocessor's macro expansion, for a kernel's own text:
 * replace the uses of the macros of a kernel's environment (front/kernel.h)
 * by what they expand to, as the compiler would.
 *
 * Object-like and function-like macros (arguments macro-expanded first,
 * then the result rescanned with the macro disabled, as C does), variadic
 * ones included.  A macro whose body uses the `#` or `##` operator is not
 * expanded (the expansion fails), nor is one named inside a directive.
 * The text between the expanded uses is kept byte for byte; an expansion
 * is separated from its neighbours by a blank where they would otherwise
 * form one token.
 */
#ifndef ASTRA_EXPAND_H
#define ASTRA_EXPAND_H

#include "lib/buf.h"
#include "front/kernel.h"

/* Return non-zero to leave the macro name[0, len) unexpanded (a tunable, a type alias). */
typedef int (*astra_expand_skip_fn)(const char *name, size_t len, void *data);

/*
 * Append text[from, to) with env's macros expanded to out.  Returns the
 * number of expansions made, or -1 (out unchanged) when a use could not
 * be expanded: `#`/`##` in its body, unbalanced arguments, the wrong
 * number of arguments, or nesting deeper than 32.
 */
int astra_expand_macros(const struct astra_env *env, const char *text, size_t from, size_t to,
			astra_expand_skip_fn skip, void *data, struct astra_buf *out);

#endif
