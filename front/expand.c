/*
 * expand.c - macro expansion of a kernel's text (see expand.h).
 *
 * Separate from extract.c: libclang expands macros only inside its own
 * parse, and the rules need the expansion as text they can rewrite.
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "front/expand.h"
#include "front/lex.h"

#define MAX_DEPTH 32

struct ex {
	const struct astra_env *env;
	astra_expand_skip_fn skip;
	void *data;
	const char *active[MAX_DEPTH]; /* macros being expanded: not expanded again */
	int depth;
	int count;
	int fail;
};

static int expand_text(struct ex *X, const char *text, size_t len, struct astra_buf *out);

static int is_active(const struct ex *X, const char *name)
{
	int i;
	for (i = 0; i < X->depth; i++)
		if (!strcmp(X->active[i], name))
			return 1;
	return 0;
}

static int punct_char(char c)
{
	return c && strchr("+-*/%<>=!&|^~.:#", c) != NULL;
}

/* Would the last character of out and c form one token if written together? */
static int joins(const struct astra_buf *out, char c)
{
	char p;
	if (!out->len)
		return 0;
	p = out->buf[out->len - 1];
	return (astra_lex_ident_char((unsigned char)p) && astra_lex_ident_char((unsigned char)c)) ||
	       (punct_char(p) && punct_char(c));
}

static void add_sep(struct astra_buf *out, const char *s, size_t n)
{
	if (n && joins(out, s[0]))
		astra_buf_addch(out, ' ');
	astra_buf_add(out, s, n);
}

/* The body of m with its parameters replaced by the (expanded) arguments. */
static int substitute(struct ex *X, const struct astra_macro *m, char **args, size_t nr_args, struct astra_buf *out)
{
	struct astra_lexed lx;
	size_t i, prev = 0, len = strlen(m->body);
	if (astra_lex(m->body, len, ASTRA_LEX_NO_DIRECTIVES, &lx) < 0) {
		astra_lexed_release(&lx);
		return -1;
	}
	for (i = 0; i < lx.nr; i++) {
		const struct astra_lex_tok *t = &lx.toks[i];
		size_t p;
		if (t->kind == ASTRA_LEX_PUNCT && (astra_lex_is(m->body, t, "#") || astra_lex_is(m->body, t, "##"))) {
			astra_lexed_release(&lx);
			return -1;
		}
		if (t->kind != ASTRA_LEX_IDENT)
			continue;
		for (p = 0; p < m->nr_params; p++)
			if (astra_lex_is(m->body, t, m->params[p]))
				break;
		if (p == m->nr_params)
			continue;
		astra_buf_add(out, m->body + prev, t->off - prev);
		if (p < nr_args) {
			struct astra_buf a = ASTRA_BUF_INIT;
			if (expand_text(X, args[p], strlen(args[p]), &a) < 0) {
				astra_buf_release(&a);
				astra_lexed_release(&lx);
				return -1;
			}
			add_sep(out, a.buf ? a.buf : "", a.len);
			astra_buf_release(&a);
		}
		prev = t->off + t->len;
	}
	astra_buf_add(out, m->body + prev, len - prev);
	astra_lexed_release(&lx);
	return 0;
}

/* The arguments of a call whose '(' is token open; *close gets the ')' token.  -1 when unbalanced. */
static int collect_args(const char *text, const struct astra_lexed *lx, size_t open, const struct astra_macro *m,
			char ***args, size_t *nr, size_t *close)
{
	size_t i, from = open + 1, alloc = 0;
	int depth = 0;
	*args = NULL;
	*nr = 0;
	for (i = open; i < lx->nr; i++) {
		const struct astra_lex_tok *t = &lx->toks[i];
		int end = 0, comma = 0;
		if (t->kind == ASTRA_LEX_PUNCT && astra_lex_is(text, t, "("))
			depth++;
		else if (t->kind == ASTRA_LEX_PUNCT && astra_lex_is(text, t, ")"))
			end = --depth == 0;
		else if (depth == 1 && t->kind == ASTRA_LEX_PUNCT && astra_lex_is(text, t, ","))
			comma = !(m->variadic && *nr + 1 >= m->nr_params);
		if (end || comma) {
			size_t a = from < i ? lx->toks[from].off : t->off;
			size_t b = from < i ? lx->toks[i - 1].off + lx->toks[i - 1].len : t->off;
			ALLOC_GROW(*args, *nr + 1, alloc);
			(*args)[(*nr)++] = xstrndup(text + a, b - a);
			from = i + 1;
		}
		if (end) {
			*close = i;
			return 0;
		}
	}
	return -1;
}

static void free_args(char **args, size_t nr)
{
	size_t i;
	for (i = 0; i < nr; i++)
		free(args[i]);
	free(args);
}

static int expand_text(struct ex *X, const char *text, size_t len, struct astra_buf *out)
{
	struct astra_lexed lx;
	size_t i, prev = 0;
	if (astra_lex(text, len, ASTRA_LEX_LENIENT, &lx) < 0) {
		astra_lexed_release(&lx);
		return -1;
	}
	for (i = 0; i < lx.nr && !X->fail; i++) {
		const struct astra_lex_tok *t = &lx.toks[i];
		const struct astra_macro *m;
		struct astra_buf rep = ASTRA_BUF_INIT;
		char **args = NULL, *name;
		size_t nr_args = 0, end = i;
		if (t->kind != ASTRA_LEX_IDENT)
			continue;
		if (i > 0 && (astra_lex_is(text, &lx.toks[i - 1], ".") || astra_lex_is(text, &lx.toks[i - 1], "->") ||
			      astra_lex_is(text, &lx.toks[i - 1], "::")))
			continue;
		m = astra_env_macro(X->env, text + t->off, t->len);
		if (!m || is_active(X, m->name) || (X->skip && X->skip(text + t->off, t->len, X->data)))
			continue;
		if (m->function_like) {
			if (i + 1 >= lx.nr || !astra_lex_is(text, &lx.toks[i + 1], "("))
				continue; /* the name alone is no use of a function-like macro */
			if (collect_args(text, &lx, i + 1, m, &args, &nr_args, &end) < 0) {
				X->fail = 1;
				break;
			}
			/* `M()` of a macro without parameters has one empty argument */
			if (nr_args == 1 && !args[0][0] && m->nr_params == 0)
				nr_args = 0;
			if (nr_args != m->nr_params && !(m->variadic && nr_args + 1 >= m->nr_params)) {
				free_args(args, nr_args);
				X->fail = 1;
				break;
			}
		}
		if (X->depth >= MAX_DEPTH) {
			free_args(args, nr_args);
			X->fail = 1;
			break;
		}
		name = m->name;
		{
			struct astra_buf body = ASTRA_BUF_INIT;
			int r = m->function_like ? substitute(X, m, args, nr_args, &body) : 0;
			if (!m->function_like)
				astra_buf_adds(&body, m->body);
			free_args(args, nr_args);
			X->active[X->depth++] = name;
			if (r == 0)
				r = expand_text(X, body.buf ? body.buf : "", body.len, &rep);
			X->depth--;
			astra_buf_release(&body);
			if (r < 0) {
				astra_buf_release(&rep);
				X->fail = 1;
				break;
			}
		}
		astra_buf_add(out, text + prev, t->off - prev);
		add_sep(out, rep.buf ? rep.buf : "", rep.len);
		prev = lx.toks[end].off + lx.toks[end].len;
		if (prev < len && rep.len && joins(&rep, text[prev]))
			astra_buf_addch(out, ' ');
		astra_buf_release(&rep);
		X->count++;
		i = end;
	}
	if (!X->fail)
		astra_buf_add(out, text + prev, len - prev);
	astra_lexed_release(&lx);
	return X->fail ? -1 : 0;
}

int astra_expand_macros(const struct astra_env *env, const char *text, size_t from, size_t to,
			astra_expand_skip_fn skip, void *data, struct astra_buf *out)
{
	struct ex X;
	struct astra_buf b = ASTRA_BUF_INIT;
	memset(&X, 0, sizeof(X));
	X.env = env;
	X.skip = skip;
	X.data = data;
	if (expand_text(&X, text + from, to - from, &b) < 0) {
		astra_buf_release(&b);
		return -1;
	}
	astra_buf_add(out, b.buf ? b.buf : "", b.len);
	astra_buf_release(&b);
	return X.count;
}
