/*
 * screen.c - the verifier's static check of candidate text (see screen.h).
 *
 * It reads the candidate through front/lex.c, the one lexer (comments,
 * strings, raw strings, preprocessor lines, identifiers, numbers,
 * punctuation), and walks over the top-level declarations.  It does not
 * parse C++: where it cannot tell, it lets the candidate through to the
 * compiler and the test program, which are the real judges; what it
 * rejects it rejects for a reason it can show.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "front/lex.h"
#include "verify/screen.h"

/*
 * The screen's view of a candidate: front/lex.c's tokens, each punctuation
 * character one token (so `>>` closes two template lists and `==` holds two
 * `=`), with `::` and `<<<` glued back into one (a qualified name, a launch).
 */
struct lexer {
	const char *s;
	size_t n;
	struct astra_lex_tok *toks;
	size_t nr;
	const char *error;
	unsigned error_line;
	struct astra_lexed lexed;
};

/* Is token b the character after token a (nothing between them)? */
static int adjacent(const struct astra_lex_tok *a, const struct astra_lex_tok *b)
{
	return a->kind == ASTRA_LEX_PUNCT && b->kind == ASTRA_LEX_PUNCT && a->off + a->len == b->off;
}

/* Glue `c c` (n = 2) or `c c c` (n = 3) at i into one token; does it match? */
static int glue(struct lexer *lx, size_t i, char c, size_t n)
{
	size_t k;
	if (i + n > lx->nr)
		return 0;
	for (k = 0; k < n; k++)
		if (lx->toks[i + k].kind != ASTRA_LEX_PUNCT || lx->s[lx->toks[i + k].off] != c ||
		    (k && !adjacent(&lx->toks[i + k - 1], &lx->toks[i + k])))
			return 0;
	lx->toks[i].len = n;
	return 1;
}

/* Tokenize; comments vanish, preprocessor lines are one ASTRA_LEX_PP token. */
static int lex(struct lexer *lx)
{
	size_t i, o = 0;
	int rc = astra_lex(lx->s, lx->n, ASTRA_LEX_ONE_CHAR, &lx->lexed);

	lx->toks = lx->lexed.toks;
	lx->nr = lx->lexed.nr;
	for (i = 0; i < lx->lexed.nr; i++) {
		size_t n = glue(lx, i, '<', 3) ? 3 : glue(lx, i, ':', 2) ? 2 : 1;
		lx->toks[o++] = lx->toks[i];
		i += n - 1;
	}
	lx->nr = o;
	if (rc < 0) {
		lx->error = lx->lexed.error;
		lx->error_line = lx->lexed.error_line;
	}
	return rc;
}

static int tok_is(const struct lexer *lx, size_t i, const char *text)
{
	size_t n = strlen(text);
	return i < lx->nr && lx->toks[i].len == n && !memcmp(lx->s + lx->toks[i].off, text, n);
}

static char *tok_str(const struct lexer *lx, size_t i)
{
	return xstrndup(lx->s + lx->toks[i].off, lx->toks[i].len);
}

/* The matching closer of the bracket at i, or lx->nr. */
static size_t match(const struct lexer *lx, size_t i)
{
	char open = lx->s[lx->toks[i].off], close = open == '{' ? '}' : open == '(' ? ')' : ']';
	int depth = 0;
	for (; i < lx->nr; i++) {
		if (lx->toks[i].kind != ASTRA_LEX_PUNCT || lx->toks[i].len != 1)
			continue;
		if (lx->s[lx->toks[i].off] == open)
			depth++;
		else if (lx->s[lx->toks[i].off] == close && --depth == 0)
			return i;
	}
	return lx->nr;
}

struct screen {
	struct lexer lx;
	const char *kernel;
	int found_kernel;
	char *blank;           /* per byte: 1 = blank it in the output */
	struct astra_screened *out;
};

static int reject(struct screen *sc, const char *check, unsigned line, const char *fmt, ...)
	ASTRA_PRINTF(4, 5);

static int reject(struct screen *sc, const char *check, unsigned line, const char *fmt, ...)
{
	va_list ap;
	if (sc->out->check)
		return -1;
	sc->out->check = check;
	va_start(ap, fmt);
	sc->out->reason = xvasprintf(fmt, ap);
	va_end(ap);
	sc->out->line = line;
	return -1;
}

static void blank_tok(struct screen *sc, size_t i)
{
	memset(sc->blank + sc->lx.toks[i].off, 1, sc->lx.toks[i].len);
}

/* Host APIs that start, order or allocate work: not for a kernel variant. */
static const char *const launch_prefixes[] = {
	"cudaStream", "cudaEvent", "cudaLaunch", "cudaGraph", "cudaMemcpy", "cudaMemset",
	"cudaDeviceSynchronize", "cudaDeviceReset", "cudaSetDevice", "cudaGetParameterBuffer",
	"cudaMemPrefetch", "cudaHostAlloc", "cudaMallocHost", "cuLaunch", "cuStream", "cuGraph",
};
static const char *const state_idents[] = { "malloc", "free", "cudaMalloc", "cudaMallocAsync",
					    "cudaFree", "cudaFreeAsync", "cudaMallocManaged" };

static int check_idents(struct screen *sc)
{
	size_t i, k;
	for (i = 0; i < sc->lx.nr; i++) {
		const struct astra_lex_tok *t = &sc->lx.toks[i];
		if (t->kind == ASTRA_LEX_PUNCT && t->len == 3)
			return reject(sc, "stream", t->line, "starts kernels of its own (<<<...>>>): a variant is launched "
				      "by astra-cc, on the caller's stream");
		if (t->kind != ASTRA_LEX_IDENT)
			continue;
		for (k = 0; k < ARRAY_SIZE(state_idents); k++)
			if (tok_is(&sc->lx, i, state_idents[k]) && tok_is(&sc->lx, i + 1, "("))
				return reject(sc, "state", t->line, "allocates memory (%s): a variant must not keep "
					      "anything between calls", state_idents[k]);
		for (k = 0; k < ARRAY_SIZE(launch_prefixes); k++) {
			size_t n = strlen(launch_prefixes[k]);
			if (t->len >= n && !memcmp(sc->lx.s + t->off, launch_prefixes[k], n)) {
				char *name = tok_str(&sc->lx, i);
				reject(sc, "stream", t->line, "uses %s: a variant may not start, order or wait "
				       "for work (it runs on the caller's stream)", name);
				free(name);
				return -1;
			}
		}
	}
	return 0;
}

/*
 * The directive's name of preprocessor token t of text s (`#  ifndef X`:
 * "ifndef"; at most size - 1 letters) in word; returns where the text
 * after the name starts.
 */
static const char *pp_directive(const char *s, const struct astra_lex_tok *t, char *word, size_t size)
{
	const char *p = s + t->off + 1, *end = s + t->off + t->len;
	size_t w = 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (p < end && isalpha((unsigned char)*p) && w < size - 1)
		word[w++] = *p++;
	word[w] = '\0';
	return p;
}

/* Preprocessor lines: blank `#pragma astra` (keeping launch), reject the rest that matter. */
static int check_pp(struct screen *sc)
{
	size_t i;
	for (i = 0; i < sc->lx.nr; i++) {
		const struct astra_lex_tok *t = &sc->lx.toks[i];
		const char *p, *end;
		char word[16];
		if (t->kind != ASTRA_LEX_PP)
			continue;
		p = pp_directive(sc->lx.s, t, word, sizeof(word));
		end = sc->lx.s + t->off + t->len;
		if (!strcmp(word, "pragma")) {
			const char *q = p;
			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			if (end - q >= 5 && !memcmp(q, "astra", 5)) {
				struct astra_buf b = ASTRA_BUF_INIT;
				const char *l;
				/* Join continuation lines before looking for launch(...). */
				for (l = q + 5; l < end; l++) {
					if (*l == '\\' && l + 1 < end && l[1] == '\n') {
						l++;
						continue;
					}
					astra_buf_addch(&b, *l);
				}
				l = strstr(b.buf, "launch");
				if (l) {
					const char *open = strchr(l, '('), *close;
					int depth = 0;
					for (close = open; close && *close; close++) {
						if (*close == '(')
							depth++;
						else if (*close == ')' && --depth == 0)
							break;
					}
					if (!open || !close || !*close) {
						astra_buf_release(&b);
						return reject(sc, "syntax", t->line, "malformed #pragma astra launch(...)");
					}
					{
						char *inner = xstrndup(open + 1, (size_t)(close - open - 1));
						int rc = astra_screen_parse_launch(inner, &sc->out->grid, &sc->out->block,
										   &sc->out->shmem);
						free(inner);
						if (rc < 0) {
							astra_buf_release(&b);
							return reject(sc, "syntax", t->line,
								      "malformed #pragma astra launch(...): expected "
								      "grid=EXPR, block=EXPR[, shmem=EXPR]");
						}
					}
				}
				astra_buf_release(&b);
				blank_tok(sc, i);
				/* and a comment after it, to the end of the line */
				for (l = end; *l && *l != '\n'; l++)
					sc->blank[l - sc->lx.s] = 1;
			}
			continue;
		}
		if (!strcmp(word, "include") || !strcmp(word, "define") || !strcmp(word, "undef") ||
		    !strcmp(word, "line") || !strcmp(word, "error") || !strcmp(word, "import") ||
		    !strcmp(word, "include_next"))
			return reject(sc, "preprocessor", t->line, "#%s is not allowed in a variant: it must be the "
				      "kernel and device helpers only, seeing what the original sees", word);
	}
	return 0;
}

/* Skip `template < ... >` at i (angle brackets, ignoring those inside parentheses). */
static size_t skip_template(const struct lexer *lx, size_t i, size_t end)
{
	int depth = 0;
	if (!tok_is(lx, i, "template") || !tok_is(lx, i + 1, "<"))
		return i;
	for (i++; i < end; i++) {
		if (tok_is(lx, i, "("))
			i = match(lx, i);
		else if (tok_is(lx, i, "<"))
			depth++;
		else if (tok_is(lx, i, ">") && --depth == 0)
			return i + 1;
	}
	return end;
}

static int head_has(const struct lexer *lx, size_t from, size_t to, const char *word)
{
	size_t i;
	for (i = from; i < to; i++)
		if (tok_is(lx, i, word))
			return 1;
	return 0;
}

/* Index of the first '(' in [from, to) that is not an attribute's. */
static size_t first_paren(const struct lexer *lx, size_t from, size_t to)
{
	static const char *const attrs[] = { "__launch_bounds__", "__attribute__", "__align__", "alignas",
					     "__declspec", "__maxnreg__", "__cluster_dims__" };
	size_t i, k;
	for (i = from; i < to; i++) {
		if (lx->toks[i].kind == ASTRA_LEX_IDENT) {
			for (k = 0; k < ARRAY_SIZE(attrs); k++)
				if (tok_is(lx, i, attrs[k]) && tok_is(lx, i + 1, "(")) {
					i = match(lx, i + 1);
					break;
				}
			continue;
		}
		if (tok_is(lx, i, "["))  /* [[attributes]] */
			i = match(lx, i);
		else if (tok_is(lx, i, "("))
			return i;
		else if (tok_is(lx, i, "="))
			return to;
	}
	return to;
}

/* `static` inside a function body must be const: no state across calls. */
static int check_body(struct screen *sc, size_t from, size_t to)
{
	size_t i, j;
	for (i = from; i < to; i++) {
		if (!tok_is(&sc->lx, i, "static"))
			continue;
		for (j = i + 1; j < to && !tok_is(&sc->lx, j, ";") && !tok_is(&sc->lx, j, "=") &&
			     !tok_is(&sc->lx, j, "{"); j++)
			if (tok_is(&sc->lx, j, "const") || tok_is(&sc->lx, j, "constexpr"))
				break;
		if (j < to && (tok_is(&sc->lx, j, "const") || tok_is(&sc->lx, j, "constexpr")))
			continue;
		return reject(sc, "state", sc->lx.toks[i].line, "declares a static variable: a variant must "
			      "not keep anything between calls");
	}
	return 0;
}

/* A declaration without a body, [from, to) with to at ';'. */
static int check_decl(struct screen *sc, size_t from, size_t to)
{
	const struct lexer *lx = &sc->lx;
	size_t p;
	from = skip_template(lx, from, to);
	if (from >= to)
		return 0;
	if (tok_is(lx, from, "using") || tok_is(lx, from, "typedef") || tok_is(lx, from, "static_assert") ||
	    tok_is(lx, from, "struct") || tok_is(lx, from, "class") || tok_is(lx, from, "union") ||
	    tok_is(lx, from, "enum") || tok_is(lx, from, "namespace") || tok_is(lx, from, "friend"))
		return 0;
	p = first_paren(lx, from, to);
	if (p < to)
		return 0; /* a function declaration: no code, no state */
	/* Read-only tables and shared memory (per block, per launch) are fine. */
	if (head_has(lx, from, to, "constexpr") || head_has(lx, from, to, "__constant__") ||
	    head_has(lx, from, to, "__shared__"))
		return 0;
	{
		/* `const T *p` is a mutable pointer: const must follow the last '*'. */
		size_t k;
		int seen_const = 0;
		for (k = from; k < to && !tok_is(lx, k, "="); k++) {
			if (tok_is(lx, k, "*"))
				seen_const = 0;
			else if (tok_is(lx, k, "const"))
				seen_const = 1;
		}
		if (seen_const)
			return 0;
	}
	{
		/* Name it: the identifier before '=', '[' or the end. */
		size_t k, name = to;
		for (k = from; k < to; k++) {
			if (tok_is(lx, k, "=") || tok_is(lx, k, "["))
				break;
			if (lx->toks[k].kind == ASTRA_LEX_IDENT)
				name = k;
		}
		if (name < to) {
			char *nm = tok_str(lx, name);
			reject(sc, "state", lx->toks[from].line, "defines a mutable global variable `%s`: a variant "
			       "must not keep anything between calls", nm);
			free(nm);
			return -1;
		}
	}
	return 0;
}

static int walk(struct screen *sc, size_t from, size_t to);

/* A declaration with a body: [from, open) is the head, open is '{'. */
static int check_def(struct screen *sc, size_t from, size_t open, size_t close, size_t *next)
{
	const struct lexer *lx = &sc->lx;
	size_t h = skip_template(lx, from, open), p;
	*next = close + 1;

	if (head_has(lx, h, open, "namespace"))
		return walk(sc, open + 1, close);
	if (h + 2 == open && tok_is(lx, h, "extern") && lx->toks[h + 1].kind == ASTRA_LEX_STRING) {
		blank_tok(sc, h);
		blank_tok(sc, h + 1);
		blank_tok(sc, open);
		blank_tok(sc, close);
		return walk(sc, open + 1, close);
	}
	p = first_paren(lx, h, open);
	if (p >= open) {
		/* struct/class/union/enum definition, or an initializer. */
		size_t k;
		if (head_has(lx, h, open, "=")) {
			/* `T x = {...};` or `T x[] = {...};` */
			for (k = close + 1; k < lx->nr && !tok_is(lx, k, ";"); k++)
				;
			*next = k + 1;
			return check_decl(sc, from, open);
		}
		/* Anything declared after the closing brace is a variable. */
		for (k = close + 1; k < lx->nr && !tok_is(lx, k, ";"); k++)
			if (lx->toks[k].kind == ASTRA_LEX_IDENT && !head_has(lx, h, open, "const"))
				return reject(sc, "state", lx->toks[k].line, "defines a mutable global variable: a "
					      "variant must not keep anything between calls");
		*next = k + 1;
		return 0;
	}
	/* A function definition. */
	{
		int global = head_has(lx, h, p, "__global__");
		int device = head_has(lx, h, p, "__device__");
		size_t k, name = p;
		for (k = h; k < p; k++)
			if (lx->toks[k].kind == ASTRA_LEX_IDENT)
				name = k;
		if (name < p && global && tok_is(lx, name, sc->kernel))
			sc->found_kernel = 1;
		if (!global && !device) {
			char *nm = name < p ? tok_str(lx, name) : xstrdup("?");
			reject(sc, "host-code", lx->toks[h].line, "defines host function `%s`: a variant is the kernel "
			       "and __device__ helpers only", nm);
			free(nm);
			return -1;
		}
		/* Function-local `static` state, and the (...) trailing parts. */
		return check_body(sc, open + 1, close);
	}
}

/* Walk the declarations in [from, to) at namespace scope. */
static int walk(struct screen *sc, size_t from, size_t to)
{
	const struct lexer *lx = &sc->lx;
	size_t i = from, start = from;
	while (i < to) {
		if (lx->toks[i].kind == ASTRA_LEX_PP) {
			if (start == i)
				start = i + 1;
			i++;
			continue;
		}
		if (tok_is(lx, i, "(") || tok_is(lx, i, "[")) {
			i = match(lx, i) + 1;
			continue;
		}
		if (tok_is(lx, i, "{")) {
			size_t close = match(lx, i), next;
			if (close >= to)
				return reject(sc, "syntax", lx->toks[i].line, "unbalanced braces");
			/* extern "C" before a function: strip it (the copy is namespaced). */
			if (tok_is(lx, start, "extern") && start + 1 < i && lx->toks[start + 1].kind == ASTRA_LEX_STRING &&
			    !tok_is(lx, start + 2, "{")) {
				blank_tok(sc, start);
				blank_tok(sc, start + 1);
			}
			if (check_def(sc, start, i, close, &next) < 0)
				return -1;
			i = start = next;
			continue;
		}
		if (tok_is(lx, i, ";")) {
			if (tok_is(lx, start, "extern") && start + 1 < i && lx->toks[start + 1].kind == ASTRA_LEX_STRING) {
				blank_tok(sc, start);
				blank_tok(sc, start + 1);
			}
			if (check_decl(sc, start, i) < 0)
				return -1;
			i = start = i + 1;
			continue;
		}
		if (tok_is(lx, i, "}"))
			return reject(sc, "syntax", lx->toks[i].line, "unbalanced braces");
		i++;
	}
	return 0;
}

int astra_screen_candidate(const char *text, const char *kernel_name, struct astra_screened *out)
{
	struct screen sc;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	memset(&sc, 0, sizeof(sc));
	sc.lx.s = text;
	sc.lx.n = strlen(text);
	sc.kernel = kernel_name;
	sc.out = out;
	sc.blank = xcalloc(sc.lx.n + 1, 1);

	if (lex(&sc.lx) < 0)
		rc = reject(&sc, "syntax", sc.lx.error_line, "%s", sc.lx.error);
	if (!rc)
		rc = check_pp(&sc);
	if (!rc)
		rc = check_idents(&sc);
	if (!rc)
		rc = walk(&sc, 0, sc.lx.nr);
	if (!rc && !sc.found_kernel)
		rc = reject(&sc, "kernel-missing", 0, "does not define __global__ %s (a variant keeps the kernel's name "
			    "and signature)", kernel_name);
	if (!rc) {
		out->text = xstrdup(text);
		for (i = 0; i < sc.lx.n; i++)
			if (sc.blank[i] && out->text[i] != '\n')
				out->text[i] = ' ';
	} else {
		free(out->grid);
		free(out->block);
		free(out->shmem);
		out->grid = out->block = out->shmem = NULL;
	}
	free(sc.blank);
	astra_lexed_release(&sc.lx.lexed);
	return rc;
}

void astra_screened_release(struct astra_screened *s)
{
	free(s->text);
	free(s->grid);
	free(s->block);
	free(s->shmem);
	free(s->reason);
	memset(s, 0, sizeof(*s));
}

static char *trimmed(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && (isspace((unsigned char)s[n - 1]) || s[n - 1] == ','))
		n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

int astra_screen_parse_launch(const char *s, char **grid, char **block, char **shmem)
{
	static const char *const keys[] = { "grid", "block", "shmem" };
	char **dest[] = { grid, block, shmem };
	size_t n = strlen(s), i, at[64], key_of[64], nr = 0, k;
	int depth = 0;

	/* Positions of `key=` at bracket depth 0. */
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}')
			depth--;
		if (depth < 0)
			return -1;
		if (depth || !isalpha((unsigned char)c) || (i && astra_lex_ident_char((unsigned char)s[i - 1])))
			continue;
		for (k = 0; k < ARRAY_SIZE(keys); k++) {
			size_t kl = strlen(keys[k]), j = i + kl;
			if (strncmp(s + i, keys[k], kl) || astra_lex_ident_char((unsigned char)s[j]))
				continue;
			while (j < n && isspace((unsigned char)s[j]))
				j++;
			if (j < n && s[j] == '=' && s[j + 1] != '=' && nr < ARRAY_SIZE(at)) {
				at[nr] = i;
				key_of[nr++] = k;
			}
		}
	}
	if (depth || !nr)
		return -1;
	for (i = 0; i < nr; i++) {
		const char *v = strchr(s + at[i], '=') + 1;
		size_t end = i + 1 < nr ? at[i + 1] : n;
		char *val = trimmed(v, (size_t)(s + end - v));
		if (!*val) {
			free(val);
			return -1;
		}
		free(*dest[key_of[i]]);
		*dest[key_of[i]] = val;
	}
	return 0;
}

int astra_screen_scope(const char *text, size_t len, size_t at, struct astra_vec *names)
{
	struct lexer lx;
	size_t i;
	/* One entry per open brace: 1 namespace (named or not), 0 linkage block, -1 other. */
	int *kind = NULL;
	char **nm = NULL;
	size_t depth = 0, alloc_k = 0, alloc_n = 0;
	int rc = 0;

	memset(&lx, 0, sizeof(lx));
	lx.s = text;
	lx.n = at < len ? at : len;
	lex(&lx);  /* a prefix may end inside anything: use what lexed */
	for (i = 0; i < lx.nr; i++) {
		if (tok_is(&lx, i, "{")) {
			int k = -1;
			char *name = NULL;
			size_t j = i;
			/* namespace { / namespace a { / namespace a::b { (C++17) */
			while (j >= 2 && lx.toks[j - 1].kind == ASTRA_LEX_IDENT &&
			       (tok_is(&lx, j - 2, "::") || tok_is(&lx, j - 2, "namespace")))
				j = tok_is(&lx, j - 2, "::") ? j - 2 : j - 1;
			if (j >= 1 && tok_is(&lx, j - 1, "namespace")) {
				k = 1;
				name = xstrndup(lx.s + (j < i ? lx.toks[j].off : 0),
						j < i ? lx.toks[i - 1].off + lx.toks[i - 1].len - lx.toks[j].off : 0);
			} else if (i >= 2 && tok_is(&lx, i - 2, "extern") && lx.toks[i - 1].kind == ASTRA_LEX_STRING) {
				k = 0;
			}
			ALLOC_GROW(kind, depth + 1, alloc_k);
			ALLOC_GROW(nm, depth + 1, alloc_n);
			kind[depth] = k;
			nm[depth] = name;
			depth++;
		} else if (tok_is(&lx, i, "}") && depth) {
			depth--;
			free(nm[depth]);
		}
	}
	for (i = 0; i < depth; i++) {
		if (kind[i] < 0)
			rc = -1;
		else if (kind[i] == 1)
			astra_vec_push(names, nm[i]);
		free(nm[i]);
	}
	free(kind);
	free(nm);
	astra_lexed_release(&lx.lexed);
	return rc < 0 ? -1 : (int)depth;
}

int astra_screen_open_conditionals(const char *text, size_t len, size_t at)
{
	struct lexer lx;
	size_t i;
	int depth = 0;

	memset(&lx, 0, sizeof(lx));
	lx.s = text;
	lx.n = at < len ? at : len;
	lex(&lx);
	for (i = 0; i < lx.nr; i++) {
		char word[8];
		if (lx.toks[i].kind != ASTRA_LEX_PP)
			continue;
		pp_directive(lx.s, &lx.toks[i], word, sizeof(word));
		if (!strcmp(word, "if") || !strcmp(word, "ifdef") || !strcmp(word, "ifndef"))
			depth++;
		else if (!strcmp(word, "endif") && depth)
			depth--;
	}
	astra_lexed_release(&lx.lexed);
	return depth;
}
