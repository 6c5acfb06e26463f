/*
 * vec.c - the string vector (see vec.h).
 */
#include "autoconfig.h"

#include <stdarg.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/vec.h"

static char *null_argv[1];

void astra_vec_init(struct astra_vec *vec)
{
	vec->v = null_argv;
	vec->nr = vec->alloc = 0;
}

void astra_vec_clear(struct astra_vec *vec)
{
	size_t i;
	if (vec->alloc) {
		for (i = 0; i < vec->nr; i++)
			free(vec->v[i]);
		free(vec->v);
	}
	astra_vec_init(vec);
}

static void ensure(struct astra_vec *vec, size_t n)
{
	if (!vec->alloc)
		vec->v = NULL;
	ALLOC_GROW(vec->v, n + 1, vec->alloc);
}

void astra_vec_push_owned(struct astra_vec *vec, char *s)
{
	ensure(vec, vec->nr + 1);
	vec->v[vec->nr++] = s;
	vec->v[vec->nr] = NULL;
}

void astra_vec_push(struct astra_vec *vec, const char *s)
{
	astra_vec_push_owned(vec, xstrdup(s));
}

void astra_vec_pushf(struct astra_vec *vec, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	astra_vec_push_owned(vec, xvasprintf(fmt, ap));
	va_end(ap);
}

void astra_vec_pushv(struct astra_vec *vec, char *const *items, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		astra_vec_push(vec, items[i]);
}

void astra_vec_insert(struct astra_vec *vec, size_t at, const char *s)
{
	if (at > vec->nr)
		die("astra_vec_insert out of range");
	ensure(vec, vec->nr + 1);
	memmove(vec->v + at + 1, vec->v + at, (vec->nr - at + 1) * sizeof(char *));
	vec->v[at] = xstrdup(s);
	vec->nr++;
}

void astra_vec_remove(struct astra_vec *vec, size_t at)
{
	if (at >= vec->nr)
		die("astra_vec_remove out of range");
	free(vec->v[at]);
	memmove(vec->v + at, vec->v + at + 1, (vec->nr - at) * sizeof(char *));
	vec->nr--;
}

void astra_vec_set(struct astra_vec *vec, size_t at, const char *s)
{
	if (at >= vec->nr)
		die("astra_vec_set out of range");
	free(vec->v[at]);
	vec->v[at] = xstrdup(s);
}

long astra_vec_find(const struct astra_vec *vec, const char *s)
{
	size_t i;
	for (i = 0; i < vec->nr; i++)
		if (!strcmp(vec->v[i], s))
			return (long)i;
	return -1;
}

void astra_vec_split_shell(struct astra_vec *vec, const char *s)
{
	struct astra_buf word = ASTRA_BUF_INIT;
	int in_word = 0;
	char quote = 0;

	for (; *s; s++) {
		char c = *s;
		if (quote) {
			if (c == quote)
				quote = 0;
			else if (c == '\\' && quote == '"' && s[1] && strchr("\"\\$`", s[1]))
				astra_buf_addch(&word, *++s);
			else
				astra_buf_addch(&word, c);
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (in_word) {
				astra_vec_push(vec, word.buf);
				astra_buf_reset(&word);
				in_word = 0;
			}
			continue;
		}
		in_word = 1;
		if (c == '\'' || c == '"')
			quote = c;
		else if (c == '\\' && s[1])
			astra_buf_addch(&word, *++s);
		else
			astra_buf_addch(&word, c);
	}
	if (in_word)
		astra_vec_push(vec, word.buf);
	astra_buf_release(&word);
}
