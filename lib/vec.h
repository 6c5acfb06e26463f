/*
 * vec.h - a NULL-terminated vector of owned strings (an argv).
 *
 * v[nr] is always NULL, so v can be handed to execv() directly.  The
 * vector owns its strings: push copies, clear frees them.
 */
#ifndef ASTRA_VEC_H
#define ASTRA_VEC_H

#include <stddef.h>

#include "lib/util.h"

struct astra_vec {
	char **v;
	size_t nr;
	size_t alloc;
};

#define ASTRA_VEC_INIT { NULL, 0, 0 }

void astra_vec_init(struct astra_vec *vec);
void astra_vec_clear(struct astra_vec *vec);
void astra_vec_push(struct astra_vec *vec, const char *s);
/* Takes ownership of s (which must come from malloc). */
void astra_vec_push_owned(struct astra_vec *vec, char *s);
void astra_vec_pushf(struct astra_vec *vec, const char *fmt, ...) ASTRA_PRINTF(2, 3);
void astra_vec_pushv(struct astra_vec *vec, char *const *items, size_t n);
void astra_vec_insert(struct astra_vec *vec, size_t at, const char *s);
void astra_vec_remove(struct astra_vec *vec, size_t at);
/* Replace element at with a copy of s. */
void astra_vec_set(struct astra_vec *vec, size_t at, const char *s);
/* Index of the first element equal to s, or -1. */
long astra_vec_find(const struct astra_vec *vec, const char *s);

/*
 * Split a string the way nvcc and its options files split: on whitespace,
 * honouring single and double quotes and backslash escapes.  Appends to vec.
 */
void astra_vec_split_shell(struct astra_vec *vec, const char *s);

#endif
