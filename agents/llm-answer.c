/*
 * llm-answer.c - code extraction from answers and the lexical candidate
 * check (see llm-answer.h).
 *
 * Everything here reads untrusted text: every index is bounds-checked,
 * nothing recurses on input structure, and the work is linear in the size
 * of the input (the fuzz target holds us to it).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "agents/llm-answer.h"
#include "astra-cc/util.h"

/* ------------------------------------------------------------ tokenizer */

enum lk { L_IDENT, L_NUMBER, L_STRING, L_PUNCT, L_PP };

struct tok {
	enum lk kind;
	size_t off, len;
};

struct toks {
	const char *src;
	struct tok *v;
	size_t nr, alloc;
};

static int is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static int is_ident(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static void push(struct toks *t, enum lk kind, size_t off, size_t len)
{
	ALLOC_GROW(t->v, t->nr + 1, t->alloc);
	t->v[t->nr].kind = kind;
	t->v[t->nr].off = off;
	t->v[t->nr].len = len;
	t->nr++;
}

/* End of the string or character literal whose quote is at s[q]. */
static size_t literal_end(const char *s, size_t n, size_t q)
{
	char quote = s[q];
	size_t k = q + 1;
	while (k < n && s[k] != quote && s[k] != '\n') {
		if (s[k] == '\\' && k + 1 < n)
			k++;
		k++;
	}
	if (k < n && s[k] == quote)
		k++;
	return k < n ? k : n;
}

/* Tokenize s[0, n): comments dropped, each preprocessor line one L_PP token. */
static void lex(const char *s, size_t n, struct toks *t)
{
	size_t i = 0;
	int line_start = 1;

	t->src = s;
	t->v = NULL;
	t->nr = t->alloc = 0;
	while (i < n) {
		char c = s[i];
		size_t j;
		if (c == '\n') {
			line_start = 1;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++;
			continue;
		}
		if (c == '\\' && i + 1 < n && s[i + 1] == '\n') {
			i += 2;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			const char *end = i + 2 < n ? memmem(s + i + 2, n - i - 2, "*/", 2) : NULL;
			i = end ? (size_t)(end - s) + 2 : n;
			continue;
		}
		if (c == '#' && line_start) {
			/* To the end of the line, following backslash continuations. */
			for (j = i; j < n && s[j] != '\n'; j++)
				if (s[j] == '\\' && j + 1 < n && s[j + 1] == '\n')
					j++;
			push(t, L_PP, i, j - i);
			i = j;
			continue;
		}
		line_start = 0;
		if (is_ident_start((unsigned char)c)) {
			for (j = i; j < n && is_ident((unsigned char)s[j]); j++)
				;
			/* Raw string literal: R"delim( ... )delim" with an optional prefix. */
			if (j < n && s[j] == '"' && s[j - 1] == 'R' && j - i <= 3) {
				size_t d = j + 1, k;
				while (d < n && d - j <= 17 && s[d] != '(' && s[d] != '"' && s[d] != '\n')
					d++;
				if (d < n && s[d] == '(') {
					size_t dl = d - j - 1;
					for (k = d + 1; k < n; k++)
						if (s[k] == ')' && k + 1 + dl < n && !memcmp(s + k + 1, s + j + 1, dl) &&
						    s[k + 1 + dl] == '"')
							break;
					k = k < n ? k + 2 + dl : n;
					push(t, L_STRING, i, k - i);
					i = k;
					continue;
				}
			}
			if (j < n && (s[j] == '"' || s[j] == '\'') && j - i <= 2 &&
			    (s[i] == 'u' || s[i] == 'U' || s[i] == 'L')) {
				/* An encoding prefix: one literal token with it. */
				j = literal_end(s, n, j);
				push(t, L_STRING, i, j - i);
				i = j;
				continue;
			}
			push(t, L_IDENT, i, j - i);
			i = j;
			continue;
		}
		if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')) {
			for (j = i + 1; j < n; j++) {
				char d = s[j];
				if ((d == '+' || d == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E' ||
							       s[j - 1] == 'p' || s[j - 1] == 'P'))
					continue;
				if (!is_ident((unsigned char)d) && d != '.' && d != '\'')
					break;
			}
			push(t, L_NUMBER, i, j - i);
			i = j;
			continue;
		}
		if (c == '"' || c == '\'') {
			j = literal_end(s, n, i);
			push(t, L_STRING, i, j - i);
			i = j;
			continue;
		}
		if (c == ':' && i + 1 < n && s[i + 1] == ':') {
			push(t, L_PUNCT, i, 2);
			i += 2;
			continue;
		}
		if (c == '-' && i + 1 < n && s[i + 1] == '>') {
			push(t, L_PUNCT, i, 2);
			i += 2;
			continue;
		}
		push(t, L_PUNCT, i, 1);
		i++;
	}
}

static int tok_is(const struct toks *t, size_t i, const char *word)
{
	size_t n = strlen(word);
	return i < t->nr && t->v[i].len == n && !memcmp(t->src + t->v[i].off, word, n);
}

static int tok_punct(const struct toks *t, size_t i, char c)
{
	return i < t->nr && t->v[i].kind == L_PUNCT && t->v[i].len == 1 && t->src[t->v[i].off] == c;
}

static char *tok_str(const struct toks *t, size_t i)
{
	return xstrndup(t->src + t->v[i].off, t->v[i].len);
}

/* Source text from token a to token b inclusive, trimmed. */
static char *tok_span(const struct toks *t, size_t a, size_t b)
{
	return xstrndup(t->src + t->v[a].off, t->v[b].off + t->v[b].len - t->v[a].off);
}

/* Index of the bracket matching the opener at i (same kind), or t->nr. */
static size_t match(const struct toks *t, size_t i, size_t end)
{
	char open = t->src[t->v[i].off];
	char close = open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : '>';
	long depth = 0;
	for (; i < end; i++) {
		if (tok_punct(t, i, open))
			depth++;
		else if (tok_punct(t, i, close) && --depth == 0)
			return i;
	}
	return t->nr;
}

/* ------------------------------------------------------------ declarations */

/* One top-level item: [first, last] token indices. */
struct item {
	size_t first, last;
};

/* Split tokens into top-level items (declarations, definitions, PP lines). */
static size_t split_items(const struct toks *t, struct item **out)
{
	struct item *v = NULL;
	size_t nr = 0, alloc = 0, i, start = 0;
	long depth = 0;
	int open = 0;

	for (i = 0; i < t->nr; i++) {
		const struct tok *k = &t->v[i];
		int end = 0;
		if (!open) {
			start = i;
			open = 1;
		}
		if (k->kind == L_PP && depth == 0) {
			end = 1;
		} else if (k->kind == L_PUNCT && k->len == 1) {
			char c = t->src[k->off];
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if ((c == ')' || c == ']' || c == '}') && depth > 0)
				depth--;
			if (depth == 0 && c == ';')
				end = 1;
			if (depth == 0 && c == '}') {
				if (tok_punct(t, i + 1, ';'))
					i++;
				end = 1;
			}
		}
		if (end || i + 1 == t->nr) {
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr].first = start;
			v[nr].last = i;
			nr++;
			open = 0;
		}
	}
	*out = v;
	return nr;
}

/* What a function definition looks like, token indices into its item. */
struct fn {
	int ok;               /* a function definition with a body */
	size_t tmpl_lt, tmpl_gt; /* template < ... >, or 0/0 */
	int has_tmpl;
	size_t name;          /* the name token */
	size_t lp, rp;        /* ( ... ) of the parameters */
	size_t body;          /* the body's { */
	int is_global, is_device, is_host;
};

static int is_attribute_word(const struct toks *t, size_t i)
{
	return tok_is(t, i, "__launch_bounds__") || tok_is(t, i, "__attribute__") ||
	       tok_is(t, i, "__align__") || tok_is(t, i, "alignas") || tok_is(t, i, "__declspec") ||
	       tok_is(t, i, "__maxnreg__") || tok_is(t, i, "__cluster_dims__");
}

static void analyze_fn(const struct toks *t, const struct item *it, struct fn *f)
{
	size_t i = it->first, end = it->last + 1;

	memset(f, 0, sizeof(*f));
	if (tok_is(t, i, "template") && tok_punct(t, i + 1, '<')) {
		long depth = 0;
		size_t j;
		for (j = i + 1; j < end; j++) {
			if (tok_punct(t, j, '(') || tok_punct(t, j, '['))
				depth += 100;
			else if ((tok_punct(t, j, ')') || tok_punct(t, j, ']')) && depth >= 100)
				depth -= 100;
			else if (tok_punct(t, j, '<') && depth < 100)
				depth++;
			else if (tok_punct(t, j, '>') && depth < 100 && --depth == 0)
				break;
		}
		if (j >= end)
			return;
		f->has_tmpl = 1;
		f->tmpl_lt = i + 1;
		f->tmpl_gt = j;
		i = j + 1;
	}
	for (; i < end; i++) {
		if (t->v[i].kind == L_IDENT) {
			if (tok_is(t, i, "__global__"))
				f->is_global = 1;
			else if (tok_is(t, i, "__device__"))
				f->is_device = 1;
			else if (tok_is(t, i, "__host__"))
				f->is_host = 1;
			if (is_attribute_word(t, i) && tok_punct(t, i + 1, '(')) {
				i = match(t, i + 1, end);
				continue;
			}
			if (tok_punct(t, i + 1, '(')) {
				f->name = i;
				f->lp = i + 1;
				break;
			}
			continue;
		}
		if (t->v[i].kind == L_PUNCT && (tok_punct(t, i, '{') || tok_punct(t, i, ';') ||
						tok_punct(t, i, '(') || tok_punct(t, i, '=')))
			return;
	}
	if (i >= end)
		return;
	f->rp = match(t, f->lp, end);
	if (f->rp >= end)
		return;
	/* After the parameters: qualifiers and attributes, then the body. */
	for (i = f->rp + 1; i < end; i++) {
		if (tok_punct(t, i, '{'))
			break;
		if (is_attribute_word(t, i) && tok_punct(t, i + 1, '(')) {
			i = match(t, i + 1, end);
			continue;
		}
		if (tok_punct(t, i, ';') || tok_punct(t, i, '=') || tok_punct(t, i, '('))
			return;
	}
	if (i >= end || !tok_punct(t, it->last - (tok_punct(t, it->last, ';') ? 1 : 0), '}'))
		return;
	f->body = i;
	f->ok = 1;
}

/* Split [a, b) on depth-0 commas (angles count inside parameter lists). */
static size_t split_commas(const struct toks *t, size_t a, size_t b, size_t **starts, int angles)
{
	size_t *v = NULL, nr = 0, alloc = 0, i;
	long depth = 0;
	if (a >= b) {
		*starts = NULL;
		return 0;
	}
	ALLOC_GROW(v, nr + 2, alloc);
	v[nr++] = a;
	for (i = a; i < b; i++) {
		if (tok_punct(t, i, '(') || tok_punct(t, i, '[') || tok_punct(t, i, '{') ||
		    (angles && tok_punct(t, i, '<')))
			depth++;
		else if ((tok_punct(t, i, ')') || tok_punct(t, i, ']') || tok_punct(t, i, '}') ||
			  (angles && tok_punct(t, i, '>'))) && depth > 0)
			depth--;
		else if (depth == 0 && tok_punct(t, i, ',')) {
			ALLOC_GROW(v, nr + 2, alloc);
			v[nr++] = i + 1;
		}
	}
	v[nr] = b + 1; /* sentinel: each part is [v[k], v[k+1] - 1) */
	*starts = v;
	return nr;
}

static int is_type_word(const struct toks *t, size_t i)
{
	static const char *const words[] = {
		"const", "volatile", "__restrict__", "__restrict", "restrict", "unsigned", "signed",
		"int", "long", "short", "char", "float", "double", "bool", "void", "auto",
		"typename", "class", "struct", "size_t",
	};
	size_t k;
	for (k = 0; k < ARRAY_SIZE(words); k++)
		if (tok_is(t, i, words[k]))
			return 1;
	return 0;
}

/* The name token of a declaration in [a, b), or b when unnamed. */
static size_t decl_name(const struct toks *t, size_t a, size_t b)
{
	size_t i, name = b;
	long angle = 0;
	for (i = a; i < b; i++) {
		if (tok_punct(t, i, '<'))
			angle++;
		else if (tok_punct(t, i, '>') && angle > 0)
			angle--;
		else if (tok_punct(t, i, '=') || tok_punct(t, i, '['))
			break;
		else if (angle == 0 && t->v[i].kind == L_IDENT && !is_type_word(t, i) &&
			 !tok_punct(t, i + 1, '<') && !tok_is(t, i + 1, "::"))
			name = i;
	}
	return name;
}

static int is_restrict(const struct toks *t, size_t i)
{
	return tok_is(t, i, "__restrict__") || tok_is(t, i, "__restrict") || tok_is(t, i, "restrict");
}

/* Append the tokens of [a, b) except skip and restrict qualifiers, space-separated. */
static void add_tokens(struct astra_buf *b, const struct toks *t, size_t a, size_t e, size_t skip,
		       int *had_restrict)
{
	size_t i;
	for (i = a; i < e; i++) {
		if (i == skip)
			continue;
		if (is_restrict(t, i)) {
			if (had_restrict)
				*had_restrict = 1;
			continue;
		}
		if (tok_is(t, i, "class"))
			astra_buf_adds(b, "typename");
		else
			astra_buf_add(b, t->src + t->v[i].off, t->v[i].len);
		astra_buf_addch(b, ' ');
	}
}

/* The same normal form for text from the original kernel's model. */
static void normalize_text(struct astra_buf *b, const char *text, int *had_restrict)
{
	struct toks t;
	lex(text, strlen(text), &t);
	add_tokens(b, &t, 0, t.nr, (size_t)-1, had_restrict);
	free(t.v);
}

/* ------------------------------------------------------------ fenced blocks */

/* A fence line: up to 3 spaces, then 3+ ` or ~.  Returns the fence length. */
static size_t fence_at(const char *line, size_t len, char *ch)
{
	size_t i = 0, n = 0;
	while (i < len && i < 3 && line[i] == ' ')
		i++;
	if (i >= len || (line[i] != '`' && line[i] != '~'))
		return 0;
	*ch = line[i];
	while (i + n < len && line[i + n] == *ch)
		n++;
	return n >= 3 ? n : 0;
}

/* Does code define a __global__ function (named name, unless name is NULL)? */
static int defines_kernel(const char *code, size_t len, const char *name)
{
	struct toks t;
	size_t i;
	int found = 0;
	lex(code, len, &t);
	for (i = 0; i < t.nr && !found; i++) {
		size_t j;
		if (!tok_is(&t, i, "__global__"))
			continue;
		if (!name) {
			found = 1;
			break;
		}
		for (j = i + 1; j < t.nr && j < i + 64 && !tok_punct(&t, j, '{') && !tok_punct(&t, j, ';'); j++)
			if (tok_is(&t, j, name) && tok_punct(&t, j + 1, '('))
				found = 1;
	}
	free(t.v);
	return found;
}

int astra_llm_answer_code(const char *answer, const char *kernel_name, struct astra_buf *code,
			  struct astra_buf *why)
{
	const char *p = answer, *best = NULL, *any = NULL;
	size_t best_len = 0, any_len = 0;
	int blocks = 0, unclosed = 0;

	/*
	 * Reasoning models served through Ollama or llama.cpp may put their
	 * thinking, drafts included, in the content: only what follows counts.
	 */
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	if (!strncmp(p, "<think>", 7)) {
		const char *end = strstr(p, "</think>");
		p = end ? end + 8 : p + strlen(p);
	}

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char ch;
		size_t n = fence_at(p, len, &ch);
		if (n) {
			/* Inside a block until a closing fence of the same kind and length. */
			const char *body = eol ? eol + 1 : p + len, *q = body, *close = NULL;
			while (*q) {
				const char *e2 = strchr(q, '\n');
				size_t l2 = e2 ? (size_t)(e2 - q) : strlen(q), k = 0;
				char c2;
				size_t m = fence_at(q, l2, &c2);
				if (m >= n && c2 == ch) {
					for (k = 0; k < l2 && (q[k] == ' ' || q[k] == ch); k++)
						;
					while (k < l2 && (q[k] == ' ' || q[k] == '\t' || q[k] == '\r'))
						k++;
				}
				if (m >= n && c2 == ch && k == l2) {
					close = q;
					break;
				}
				q = e2 ? e2 + 1 : q + l2;
			}
			if (!close) {
				unclosed = 1;
				break;
			}
			blocks++;
			if (defines_kernel(body, (size_t)(close - body), kernel_name)) {
				best = body;
				best_len = (size_t)(close - body);
			} else if (defines_kernel(body, (size_t)(close - body), NULL)) {
				any = body;
				any_len = (size_t)(close - body);
			}
			eol = strchr(close, '\n');
			p = eol ? eol + 1 : close + strlen(close);
			continue;
		}
		p = eol ? eol + 1 : p + len;
	}
	if (!best && any) {
		best = any;
		best_len = any_len;
	}
	if (!best) {
		if (unclosed && !blocks)
			astra_buf_adds(why, "the code block is never closed (was the answer cut off?)");
		else if (!blocks)
			astra_buf_adds(why, "the answer has no fenced code block (```cuda ... ```)");
		else
			astra_buf_addf(why, "no code block defines the __global__ function `%s`", kernel_name);
		return -1;
	}
	/* Drop carriage returns so the text is plain Unix lines. */
	{
		size_t i;
		for (i = 0; i < best_len; i++)
			if (best[i] != '\r')
				astra_buf_addch(code, best[i]);
	}
	astra_buf_rtrim(code);
	astra_buf_addch(code, '\n');
	return 0;
}

/* ------------------------------------------------------------ the check */

/* The word after '#' in a preprocessor token, and after it. */
static void pp_words(const char *s, size_t n, char *w1, char *w2, char *w3, size_t cap, size_t *rest)
{
	size_t i = 1, k;
	char *ws[3];
	int w;
	ws[0] = w1;
	ws[1] = w2;
	ws[2] = w3;
	for (w = 0; w < 3; w++) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		for (k = 0; i < n && is_ident((unsigned char)s[i]); i++)
			if (k + 1 < cap)
				ws[w][k++] = s[i];
		ws[w][k] = '\0';
	}
	*rest = i;
}

static int allowed_in_launch(const struct astra_kernel *k, const struct toks *t, size_t i)
{
	static const char *const ok[] = {
		"dim3", "min", "max", "sizeof", "int", "unsigned", "long", "size_t", "float",
		"double", "char", "short", "signed", "const",
	};
	size_t j;
	for (j = 0; j < ARRAY_SIZE(ok); j++)
		if (tok_is(t, i, ok[j]))
			return 1;
	for (j = 0; j < k->nr_params; j++)
		if (tok_is(t, i, k->params[j].name))
			return 1;
	for (j = 0; j < k->nr_tmpl; j++)
		if (tok_is(t, i, k->tmpl_params[j]))
			return 1;
	return 0;
}

/* Parse "(grid=..., block=..., shmem=...)" after `#pragma astra launch`. */
static int parse_launch(const struct astra_kernel *k, const char *s, size_t n, char **grid,
			char **block, char **shmem, struct astra_buf *why)
{
	struct toks t;
	size_t *parts = NULL, nparts, p, close;
	int ret = -1;

	lex(s, n, &t);
	if (!tok_punct(&t, 0, '(') || (close = match(&t, 0, t.nr)) != t.nr - 1) {
		astra_buf_adds(why, "`#pragma astra launch` must be followed by (grid=..., block=...[, shmem=...])");
		goto out;
	}
	nparts = split_commas(&t, 1, close, &parts, 0);
	for (p = 0; p < nparts; p++) {
		size_t a = parts[p], b = parts[p + 1] - 1, i;
		char **slot;
		if (b < a + 3 || t.v[a].kind != L_IDENT || !tok_punct(&t, a + 1, '=')) {
			astra_buf_adds(why, "`#pragma astra launch`: expected name=expression");
			goto out;
		}
		slot = tok_is(&t, a, "grid") ? grid : tok_is(&t, a, "block") ? block :
		       tok_is(&t, a, "shmem") ? shmem : NULL;
		if (!slot || *slot) {
			char *w = tok_str(&t, a);
			astra_buf_addf(why, "`#pragma astra launch`: %s `%s` (expected grid, block and shmem, once each)",
				       slot ? "repeated" : "unknown", w);
			free(w);
			goto out;
		}
		for (i = a + 2; i < b; i++) {
			if (t.v[i].kind == L_STRING || (t.v[i].kind == L_IDENT && !allowed_in_launch(k, &t, i))) {
				char *w = tok_str(&t, i);
				astra_buf_addf(why, "`#pragma astra launch`: `%s` is not a parameter of the kernel "
					       "(launch expressions may use only the kernel's parameters and constants)", w);
				free(w);
				goto out;
			}
		}
		*slot = tok_span(&t, a + 2, b - 1);
	}
	if (!*grid || !*block) {
		astra_buf_adds(why, "`#pragma astra launch` needs both grid= and block=");
		goto out;
	}
	ret = 0;
out:
	free(parts);
	free(t.v);
	return ret;
}

static int check_template(const struct astra_kernel *k, const struct toks *t, const struct fn *f,
			  struct astra_buf *why)
{
	size_t *parts = NULL, n, i;
	int ret = -1;

	if (!k->is_template) {
		if (f->has_tmpl) {
			astra_buf_adds(why, "the kernel must not become a template: keep the original signature");
			return -1;
		}
		return 0;
	}
	if (!f->has_tmpl) {
		astra_buf_adds(why, "the kernel must keep its template header");
		return -1;
	}
	n = split_commas(t, f->tmpl_lt + 1, f->tmpl_gt, &parts, 1);
	if (n != k->nr_tmpl) {
		astra_buf_addf(why, "the kernel has %zu template parameters, the original has %zu", n, k->nr_tmpl);
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t a = parts[i], b = parts[i + 1] - 1, name = decl_name(t, a, b), e;
		struct astra_buf have = ASTRA_BUF_INIT, want = ASTRA_BUF_INIT;
		int same;
		for (e = a; e < b && !tok_punct(t, e, '='); e++)
			;
		if (name < e && t->v[name].kind == L_IDENT && tok_is(t, name, k->tmpl_params[i])) {
			add_tokens(&have, t, a, e, name, NULL);
			normalize_text(&want, k->tmpl_kinds[i] ? k->tmpl_kinds[i] : "typename", NULL);
			same = !strcmp(have.buf, want.buf);
		} else {
			same = 0;
		}
		astra_buf_release(&have);
		astra_buf_release(&want);
		if (!same) {
			astra_buf_addf(why, "template parameter %zu must stay `%s %s`", i + 1,
				       k->tmpl_kinds[i] ? k->tmpl_kinds[i] : "typename", k->tmpl_params[i]);
			goto out;
		}
	}
	ret = 0;
out:
	free(parts);
	return ret;
}

static int check_params(const struct astra_kernel *k, const struct toks *t, const struct fn *f,
			struct astra_buf *why)
{
	size_t *parts = NULL, n, i;
	int ret = -1;

	n = split_commas(t, f->lp + 1, f->rp, &parts, 1);
	if (n == 1 && parts[1] - 1 == parts[0] + 1 && tok_is(t, parts[0], "void"))
		n = 0;
	if (n != k->nr_params) {
		astra_buf_addf(why, "the kernel has %zu parameters, the original has %zu: keep the parameter list exactly",
			       n, k->nr_params);
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t a = parts[i], b = parts[i + 1] - 1, name = decl_name(t, a, b);
		const struct astra_param *p = &k->params[i];
		struct astra_buf have = ASTRA_BUF_INIT, want = ASTRA_BUF_INIT;
		int have_r = 0, want_r = 0, ok;
		if (name >= b || !tok_is(t, name, p->name)) {
			char *got = a < b ? tok_span(t, a, b - 1) : xstrdup("");
			astra_buf_addf(why, "parameter %zu is `%s`, the original is `%s%s%s` (same types and names)",
				       i + 1, got, p->type, astra_ends_with(p->type, "*") || astra_ends_with(p->type, "&") ? "" : " ",
				       p->name);
			free(got);
			goto out;
		}
		add_tokens(&have, t, a, b, name, &have_r);
		normalize_text(&want, p->type, &want_r);
		ok = !strcmp(have.buf, want.buf);
		astra_buf_release(&have);
		astra_buf_release(&want);
		if (!ok) {
			char *got = tok_span(t, a, b - 1);
			astra_buf_addf(why, "parameter %zu is `%s`, the original is `%s%s%s` (same types and names)",
				       i + 1, got, p->type, astra_ends_with(p->type, "*") || astra_ends_with(p->type, "&") ? "" : " ",
				       p->name);
			free(got);
			goto out;
		}
		if (have_r && !want_r && !(k->pragma.flags & ASTRA_PRAGMA_NOALIAS)) {
			astra_buf_addf(why, "parameter `%s` gained __restrict__, which needs `#pragma astra noalias` on the original",
				       p->name);
			goto out;
		}
	}
	ret = 0;
out:
	free(parts);
	return ret;
}

/* Describe a top-level item that is not an allowed function. */
static void describe_item(const struct toks *t, const struct item *it, const struct fn *f,
			  struct astra_buf *why)
{
	size_t i, last = it->last;
	int paren = 0, var = 0;
	char *start;
	size_t e = it->first + 6 <= last ? it->first + 6 : last;

	start = tok_span(t, it->first, e);
	for (i = it->first; i <= last; i++) {
		paren |= tok_punct(t, i, '(');
		var |= tok_is(t, i, "__device__") || tok_is(t, i, "__constant__") ||
		       tok_is(t, i, "__shared__") || tok_is(t, i, "__managed__") || tok_is(t, i, "static");
	}
	if (tok_is(t, it->first, "struct") || tok_is(t, it->first, "class") ||
	    tok_is(t, it->first, "union") || tok_is(t, it->first, "enum") || tok_is(t, it->first, "typedef") ||
	    tok_is(t, it->first, "using"))
		astra_buf_addf(why, "type definitions are not allowed in a candidate (found `%s`)", start);
	else if (f->name && tok_punct(t, last, ';'))
		astra_buf_addf(why, "a function declaration without a body is not allowed (found `%s`)", start);
	else if (var || (!paren && tok_punct(t, last, ';')))
		astra_buf_addf(why, "global variables are not allowed in a candidate (found `%s`): "
			       "a kernel must not keep state between launches", start);
	else
		astra_buf_addf(why, "only the kernel and __device__ functions may appear (found `%s`)", start);
	free(start);
}

int astra_llm_check_candidate(const struct astra_kernel *k, const char *code,
			      struct astra_variant *v, struct astra_buf *why)
{
	struct toks t;
	struct item *items = NULL;
	size_t nitems, i, n = strlen(code);
	char *grid = NULL, *block = NULL, *shmem = NULL;
	int launches = 0, kernels = 0, ret = -1;

	lex(code, n, &t);
	/* Preprocessor lines, wherever they are. */
	for (i = 0; i < t.nr; i++) {
		char w1[32], w2[32], w3[32];
		size_t rest;
		const char *s = code + t.v[i].off;
		if (t.v[i].kind != L_PP)
			continue;
		pp_words(s, t.v[i].len, w1, w2, w3, sizeof(w1), &rest);
		if (!strcmp(w1, "include")) {
			astra_buf_adds(why, "#include is not allowed in a candidate: it is compiled inside the original "
				       "file, which already has its includes");
			goto out;
		}
		if (strcmp(w1, "pragma")) {
			astra_buf_addf(why, "`#%s` is not allowed in a candidate: no preprocessor directives except #pragma", w1);
			goto out;
		}
		if (strcmp(w2, "astra"))
			continue;
		if (strcmp(w3, "launch")) {
			astra_buf_addf(why, "`#pragma astra %s` is not allowed in a candidate (only `#pragma astra launch(...)`)", w3);
			goto out;
		}
		if (launches++) {
			astra_buf_adds(why, "more than one `#pragma astra launch` line");
			goto out;
		}
		if (parse_launch(k, s + rest, t.v[i].len - rest, &grid, &block, &shmem, why) < 0)
			goto out;
	}

	nitems = split_items(&t, &items);
	for (i = 0; i < nitems; i++) {
		const struct item *it = &items[i];
		struct fn f;
		char *name;
		if (t.v[it->first].kind == L_PP) {
			/* The launch line must be at file scope, which this is. */
			continue;
		}
		if (it->first == it->last && tok_punct(&t, it->first, ';'))
			continue;
		analyze_fn(&t, it, &f);
		if (!f.ok) {
			describe_item(&t, it, &f, why);
			goto out;
		}
		name = tok_str(&t, f.name);
		if (f.is_host || (!f.is_global && !f.is_device)) {
			astra_buf_addf(why, "host code is not allowed: `%s` is a %s function (device code only)", name,
				       f.is_host ? "__host__" : "host");
			free(name);
			goto out;
		}
		if (f.is_global) {
			if (strcmp(name, k->name)) {
				astra_buf_addf(why, "a second kernel `%s` is not allowed (only `%s`)", name, k->name);
				free(name);
				goto out;
			}
			if (kernels++) {
				astra_buf_addf(why, "the kernel `%s` is defined more than once", name);
				free(name);
				goto out;
			}
			if (check_template(k, &t, &f, why) < 0 || check_params(k, &t, &f, why) < 0) {
				free(name);
				goto out;
			}
		} else if (!strcmp(name, k->name)) {
			astra_buf_addf(why, "`%s` must stay a __global__ function", name);
			free(name);
			goto out;
		}
		free(name);
	}
	/* The launch line belongs above the kernel, not inside a function. */
	for (i = 0; i < nitems; i++) {
		size_t j;
		for (j = items[i].first + 1; j <= items[i].last; j++) {
			char w1[32], w2[32], w3[32];
			size_t rest;
			if (t.v[j].kind != L_PP)
				continue;
			pp_words(code + t.v[j].off, t.v[j].len, w1, w2, w3, sizeof(w1), &rest);
			if (!strcmp(w2, "astra")) {
				astra_buf_adds(why, "`#pragma astra launch` must be above the kernel, not inside a function");
				goto out;
			}
		}
	}
	if (!kernels) {
		astra_buf_addf(why, "no __global__ function named `%s` in the code", k->name);
		goto out;
	}
	memset(v, 0, sizeof(*v));
	v->text = xstrdup(code);
	v->grid = grid;
	v->block = block;
	v->shmem = shmem;
	grid = block = shmem = NULL;
	ret = 0;
out:
	free(grid);
	free(block);
	free(shmem);
	free(items);
	free(t.v);
	return ret;
}

void astra_llm_variant_clear(struct astra_variant *v)
{
	free(v->text);
	free(v->grid);
	free(v->block);
	free(v->shmem);
	free(v->origin);
	memset(v, 0, sizeof(*v));
}

/* ------------------------------------------------------------ the stand-in scanner */

void astra_llm_kernel_release(struct astra_kernel *k)
{
	size_t i;
	free(k->name);
	free(k->file);
	free(k->text);
	for (i = 0; i < k->nr_tmpl; i++) {
		free(k->tmpl_params[i]);
		free(k->tmpl_kinds[i]);
	}
	free(k->tmpl_params);
	free(k->tmpl_kinds);
	for (i = 0; i < k->nr_params; i++) {
		free(k->params[i].name);
		free(k->params[i].type);
		free(k->params[i].elem_type);
	}
	free(k->params);
	astra_pragma_release(&k->pragma);
	memset(k, 0, sizeof(*k));
}

/* Fill a param from the declaration tokens [a, b). */
static void fill_param(const struct toks *t, size_t a, size_t b, struct astra_param *p)
{
	size_t name = decl_name(t, a, b), i, star = b;
	struct astra_buf type = ASTRA_BUF_INIT, elem = ASTRA_BUF_INIT;
	for (i = a; i < b; i++) {
		if (i == name)
			continue;
		if (tok_punct(t, i, '*') && star == b)
			star = i;
		if (type.len)
			astra_buf_addch(&type, ' ');
		astra_buf_add(&type, t->src + t->v[i].off, t->v[i].len);
	}
	p->name = name < b ? tok_str(t, name) : xstrdup("");
	p->type = astra_buf_detach(&type, NULL);
	p->is_pointer = star < b;
	p->is_const = 0;
	p->elem_type = NULL;
	if (p->is_pointer) {
		for (i = a; i < star; i++) {
			if (tok_is(t, i, "const")) {
				p->is_const = 1;
				continue;
			}
			if (tok_is(t, i, "volatile") || is_restrict(t, i))
				continue;
			if (elem.len)
				astra_buf_addch(&elem, ' ');
			astra_buf_add(&elem, t->src + t->v[i].off, t->v[i].len);
		}
		p->elem_type = astra_buf_detach(&elem, NULL);
	}
}

/* Feed the `#pragma astra` lines of items [from, to) to the pragma parser. */
static void parse_pragma_lines(const char *file, const char *text, const struct toks *t,
			       const struct item *items, size_t from, size_t to, struct astra_kernel *k)
{
	struct astra_diags diags = { 0 };
	size_t i, j;

	astra_pragma_init(&k->pragma);
	for (i = from; i < to; i++) {
		const struct tok *pp = &t->v[items[i].first];
		const char *s = text + pp->off, *after;
		struct astra_buf line = ASTRA_BUF_INIT;
		unsigned lineno = 1;
		for (j = 0; j < pp->off; j++)
			lineno += text[j] == '\n';
		after = memmem(s, pp->len, "astra", 5);
		if (!after)
			continue;
		after += 5;
		/* Continuation lines joined, as the preprocessor would. */
		for (j = (size_t)(after - s); j < pp->len; j++) {
			if (s[j] == '\\' && j + 1 < pp->len && s[j + 1] == '\n') {
				astra_buf_addch(&line, ' ');
				j++;
				continue;
			}
			astra_buf_addch(&line, s[j]);
		}
		astra_pragma_parse(&k->pragma, line.buf, file, lineno, (unsigned)(after - s) + 1, &diags);
		astra_buf_release(&line);
	}
	astra_diags_release(&diags);
}

int astra_llm_scan_kernel(const char *file, const char *text, size_t len, struct astra_kernel *k,
			  struct astra_buf *why)
{
	struct toks t;
	struct item *items = NULL;
	size_t nitems, i, j;
	int ret = -1;

	memset(k, 0, sizeof(*k));
	lex(text, len, &t);
	nitems = split_items(&t, &items);
	for (i = 1; i < nitems; i++) {
		struct fn f;
		size_t *parts = NULL, n, p, first_pp = i, line = 1;
		const char *s;
		if (t.v[items[i - 1].first].kind != L_PP ||
		    !memmem(text + t.v[items[i - 1].first].off, t.v[items[i - 1].first].len, "astra", 5))
			continue;
		analyze_fn(&t, &items[i], &f);
		if (!f.ok || !f.is_global)
			continue;
		while (first_pp > 0 && t.v[items[first_pp - 1].first].kind == L_PP &&
		       memmem(text + t.v[items[first_pp - 1].first].off, t.v[items[first_pp - 1].first].len,
			      "astra", 5))
			first_pp--;
		parse_pragma_lines(file, text, &t, items, first_pp, i, k);
		k->pragma_start = t.v[items[first_pp].first].off;
		k->pragma_end = t.v[items[i - 1].first].off + t.v[items[i - 1].first].len;
		if (k->pragma_end < len && text[k->pragma_end] == '\n')
			k->pragma_end++;
		k->name = tok_str(&t, f.name);
		k->file = xstrdup(file);
		k->start = t.v[items[i].first].off;
		k->end = t.v[items[i].last].off + t.v[items[i].last].len;
		k->body_start = t.v[f.body].off;
		k->text = xstrndup(text + k->start, k->end - k->start);
		for (s = text; s < text + k->start; s++)
			line += *s == '\n';
		k->line = (unsigned)line;
		k->col = 1;
		for (j = 0; j < f.name; j++)
			if (tok_is(&t, j, "extern") && j >= items[i].first)
				k->is_extern_c = 1;
		if (f.has_tmpl) {
			k->is_template = 1;
			n = split_commas(&t, f.tmpl_lt + 1, f.tmpl_gt, &parts, 1);
			k->tmpl_params = xcalloc(n + 1, sizeof(char *));
			k->tmpl_kinds = xcalloc(n + 1, sizeof(char *));
			for (p = 0; p < n; p++) {
				struct astra_param tmp;
				size_t a = parts[p], b = parts[p + 1] - 1, e;
				for (e = a; e < b && !tok_punct(&t, e, '='); e++)
					;
				fill_param(&t, a, e, &tmp);
				k->tmpl_params[p] = tmp.name;
				k->tmpl_kinds[p] = tmp.type;
				free(tmp.elem_type);
			}
			k->nr_tmpl = n;
			free(parts);
		}
		n = split_commas(&t, f.lp + 1, f.rp, &parts, 1);
		if (n == 1 && parts[1] - 1 == parts[0] + 1 && tok_is(&t, parts[0], "void"))
			n = 0;
		k->params = xcalloc(n + 1, sizeof(*k->params));
		for (p = 0; p < n; p++)
			fill_param(&t, parts[p], parts[p + 1] - 1, &k->params[p]);
		k->nr_params = n;
		free(parts);
		ret = 0;
		break;
	}
	if (ret < 0)
		astra_buf_adds(why, "no __global__ function with `#pragma astra` lines above it");
	free(items);
	free(t.v);
	return ret;
}
