/*
 * types.h - the element types kernels are written in: their sizes, and
 * what a name means through the file's typedefs, `using` aliases and
 * type macros (struct astra_env).
 *
 * One table for everyone who must know that `__nv_bfloat16` has two bytes
 * or that `floatX` is `__nv_bfloat16` in this file: the rules (vector
 * widths, float or integer math), the test program's input ranges.
 */
#ifndef ASTRA_TYPES_H
#define ASTRA_TYPES_H

#include "front/kernel.h"

/* type without const/volatile/__restrict__, __shared__/static and blanks: "const unsigned int" -> "unsignedint"; malloc'd. */
char *astra_type_bare(const char *type);

/* Size in bytes of a builtin type in bare spelling ("float", "__half", "unsignedint", "std::int64_t"); 0: unknown. */
int astra_type_builtin_size(const char *bare);

/*
 * Is elem (a pointer's element type as struct astra_param gives it: "int",
 * "unsigned long", "int64_t") an integer type: 1 signed, 2 unsigned, 0 not
 * (or unknown, such as a typedef).  The capture's index ranges and the
 * verifier's index buffers use it.
 */
int astra_type_integer_sign(const char *elem);

/*
 * type (as written) through env's aliases, bare: "const floatX" ->
 * "__nv_bfloat16" when floatX names it.  Names that are no alias stay as
 * they are.  malloc'd.
 */
char *astra_type_resolve(const struct astra_env *env, const char *type);

/* The size of type through env's aliases; 0: unknown (a pointer, a struct, a template parameter). */
int astra_type_size(const struct astra_env *env, const char *type);

/* Does text name a type by itself (a builtin, a known alias, or type keywords only)? */
int astra_type_is_type(const struct astra_env *env, const char *text);

#endif
