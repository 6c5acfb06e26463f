/*
 * syntax.c - the rules engine's C++ reader (see syntax.h).
 *
 * Separate from the rules because every rule needs the same three views of
 * the text (tokens, statements, expressions), and separate from
 * front/extract.c because rules read text that they produced themselves.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <string.h>

#include "lib/util.h"
#include "front/lex.h"
#include "rules/syntax.h"

#define NONE ((size_t)-1)

/* ------------------------------------------------------------------ lexer */

static void push_tok(struct astra_syn *syn, enum astra_syn_tok_kind kind, size_t off, size_t len)
{
	ALLOC_GROW(syn->toks, syn->nr_toks + 1, syn->alloc_toks);
	syn->toks[syn->nr_toks].kind = kind;
	syn->toks[syn->nr_toks].off = off;
	syn->toks[syn->nr_toks].len = len;
	syn->nr_toks++;
}

/* The tokens come from the front end's lexer (front/lex.h); this view only names their kinds. */
int astra_syn_lex(struct astra_syn *syn, const char *text, size_t len)
{
	struct astra_lexed lx;
	size_t i;
	int r;
	memset(syn, 0, sizeof(*syn));
	syn->text = text;
	syn->len = len;
	r = astra_lex(text, len, 0, &lx);
	for (i = 0; r == 0 && i < lx.nr; i++) {
		static const enum astra_syn_tok_kind kinds[] = {
			[ASTRA_LEX_IDENT] = SYN_IDENT, [ASTRA_LEX_NUMBER] = SYN_NUMBER, [ASTRA_LEX_STRING] = SYN_STRING,
			[ASTRA_LEX_CHAR] = SYN_CHAR, [ASTRA_LEX_PUNCT] = SYN_PUNCT, [ASTRA_LEX_PP] = SYN_PP,
			[ASTRA_LEX_COMMENT] = SYN_PUNCT,
		};
		push_tok(syn, kinds[lx.toks[i].kind], lx.toks[i].off, lx.toks[i].len);
	}
	astra_lexed_release(&lx);
	return r;
}

void astra_syn_release(struct astra_syn *syn)
{
	size_t i;
	for (i = 0; i < syn->nr_stmts; i++) {
		free(syn->stmts[i]->kids);
		free(syn->stmts[i]);
	}
	for (i = 0; i < syn->nr_exprs; i++) {
		free(syn->exprs[i]->args);
		free(syn->exprs[i]);
	}
	for (i = 0; i < syn->nr_types; i++)
		free(syn->types[i]);
	free(syn->types);
	free(syn->stmts);
	free(syn->exprs);
	free(syn->toks);
	memset(syn, 0, sizeof(*syn));
}

void astra_syn_add_type(struct astra_syn *syn, const char *name)
{
	ALLOC_GROW(syn->types, syn->nr_types + 1, syn->alloc_types);
	syn->types[syn->nr_types++] = xstrdup(name);
}

/* ------------------------------------------------------------ token helpers */

int astra_syn_is(const struct astra_syn *syn, size_t i, const char *s)
{
	size_t n;
	if (i >= syn->nr_toks || (*s && syn->toks[i].len && syn->text[syn->toks[i].off] != *s))
		return 0;   /* most calls end here: no strlen (a fifth of an --explain's time went to it) */
	n = strlen(s);
	return syn->toks[i].len == n && !memcmp(syn->text + syn->toks[i].off, s, n);
}

int astra_syn_is_ident(const struct astra_syn *syn, size_t i)
{
	return i < syn->nr_toks && syn->toks[i].kind == SYN_IDENT;
}

char *astra_syn_tokstr(const struct astra_syn *syn, size_t i)
{
	if (i >= syn->nr_toks)
		return xstrdup("");
	return xstrndup(syn->text + syn->toks[i].off, syn->toks[i].len);
}

size_t astra_syn_off(const struct astra_syn *syn, size_t t)
{
	if (t >= syn->nr_toks)
		return syn->len;
	return syn->toks[t].off;
}

size_t astra_syn_end(const struct astra_syn *syn, size_t t)
{
	if (t >= syn->nr_toks)
		return syn->len;
	return syn->toks[t].off + syn->toks[t].len;
}

char *astra_syn_text(const struct astra_syn *syn, size_t t0, size_t t1)
{
	size_t a, b;
	if (t1 <= t0)
		return xstrdup("");
	a = astra_syn_off(syn, t0);
	b = astra_syn_end(syn, t1 - 1);
	return xstrndup(syn->text + a, b - a);
}

size_t astra_syn_match(const struct astra_syn *syn, size_t i)
{
	char open, close;
	int depth = 0;
	if (i >= syn->nr_toks || syn->toks[i].kind != SYN_PUNCT || syn->toks[i].len != 1)
		return NONE;
	open = syn->text[syn->toks[i].off];
	close = open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : 0;
	if (!close)
		return NONE;
	for (; i < syn->nr_toks; i++) {
		const struct astra_syn_tok *t = &syn->toks[i];
		char c;
		if (t->kind != SYN_PUNCT || t->len != 1)
			continue;
		c = syn->text[t->off];
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}') {
			depth--;
			if (depth == 0)
				return c == close ? i : NONE;
		}
	}
	return NONE;
}

size_t astra_syn_find(const struct astra_syn *syn, size_t t0, size_t t1, const char *s)
{
	size_t i;
	for (i = t0; i < t1 && i < syn->nr_toks; i++)
		if (astra_syn_is(syn, i, s))
			return i;
	return NONE;
}

int astra_syn_mentions(const struct astra_syn *syn, size_t t0, size_t t1, const char *name)
{
	size_t i;
	for (i = t0; i < t1 && i < syn->nr_toks; i++)
		if (syn->toks[i].kind == SYN_IDENT && astra_syn_is(syn, i, name) &&
		    !(i > 0 && (astra_syn_is(syn, i - 1, ".") || astra_syn_is(syn, i - 1, "->"))))
			return 1;
	return 0;
}

static const char *const builtin_types[] = {
	"void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
	"size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
	"uint32_t", "uint64_t", "intptr_t", "uintptr_t", "half", "__half", "half2", "__half2",
	"__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16", "nv_bfloat162", "__nv_fp8_e4m3",
	"__nv_fp8_e5m2", "__nv_fp8x2_e4m3", "__nv_fp8x4_e4m3", "__nv_fp8_storage_t", "float2",
	"float3", "float4", "double2", "int2", "int3", "int4", "uint2", "uint3", "uint4",
	"char2", "char4", "uchar2", "uchar4", "short2", "short4", "ushort2", "ushort4", "longlong2",
	"ulonglong2", "dim3", "auto", "__nv_fp8x2_storage_t", "__nv_fp8x4_e5m2", "__nv_fp8x2_e5m2",
	NULL,
};

static const char *const type_quals[] = {
	"const", "volatile", "static", "extern", "constexpr", "register", "__shared__",
	"__device__", "__constant__", "__restrict__", "restrict", "typename", "struct", "inline",
	"__forceinline__", "__align__", "alignas", NULL,
};

static int in_list(const char *const *list, const char *s, size_t n)
{
	for (; *list; list++)
		if ((!n || **list == *s) && strlen(*list) == n && !memcmp(*list, s, n))
			return 1;
	return 0;
}

int astra_syn_is_type_name(const struct astra_syn *syn, const char *name, size_t len)
{
	size_t i;
	if (in_list(builtin_types, name, len))
		return 1;
	for (i = 0; i < syn->nr_types; i++)
		if ((!len || syn->types[i][0] == *name) && strlen(syn->types[i]) == len && !memcmp(syn->types[i], name, len))
			return 1;
	return 0;
}

static int tok_is_type(const struct astra_syn *syn, size_t i)
{
	return i < syn->nr_toks && syn->toks[i].kind == SYN_IDENT &&
	       astra_syn_is_type_name(syn, syn->text + syn->toks[i].off, syn->toks[i].len);
}

static int tok_is_qual(const struct astra_syn *syn, size_t i)
{
	return i < syn->nr_toks && syn->toks[i].kind == SYN_IDENT &&
	       in_list(type_quals, syn->text + syn->toks[i].off, syn->toks[i].len);
}

/* -------------------------------------------------------------- statements */

static struct astra_stmt *new_stmt(struct astra_syn *syn, enum astra_stmt_kind kind,
				   struct astra_stmt *parent)
{
	struct astra_stmt *s = xcalloc(1, sizeof(*s));
	s->kind = kind;
	s->parent = parent;
	ALLOC_GROW(syn->stmts, syn->nr_stmts + 1, syn->alloc_stmts);
	syn->stmts[syn->nr_stmts++] = s;
	return s;
}

static void add_kid(struct astra_stmt *p, struct astra_stmt *k)
{
	ALLOC_GROW(p->kids, p->nr_kids + 1, p->alloc_kids);
	p->kids[p->nr_kids++] = k;
	k->parent = p;
}

/* Index of the next `;` at bracket depth 0 in [i, end), or NONE. */
static size_t find_semi(const struct astra_syn *syn, size_t i, size_t end)
{
	for (; i < end; i++) {
		if (astra_syn_is(syn, i, "(") || astra_syn_is(syn, i, "[") || astra_syn_is(syn, i, "{")) {
			i = astra_syn_match(syn, i);
			if (i == NONE || i >= end)
				return NONE;
			continue;
		}
		if (astra_syn_is(syn, i, ")") || astra_syn_is(syn, i, "]") || astra_syn_is(syn, i, "}"))
			return NONE;
		if (astra_syn_is(syn, i, ";"))
			return i;
	}
	return NONE;
}

static struct astra_stmt *parse_stmt(struct astra_syn *syn, size_t *pi, size_t end,
				     struct astra_stmt *parent);

/* Statements of a block whose `{` is at *pi; *pi ends after the `}`. */
static struct astra_stmt *parse_block(struct astra_syn *syn, size_t *pi, size_t end,
				      struct astra_stmt *parent)
{
	size_t close = astra_syn_match(syn, *pi);
	struct astra_stmt *b;
	size_t i;
	if (close == NONE || close >= end)
		return NULL;
	b = new_stmt(syn, STMT_BLOCK, parent);
	b->t0 = *pi;
	b->t1 = close + 1;
	i = *pi + 1;
	while (i < close) {
		struct astra_stmt *k = parse_stmt(syn, &i, close, b);
		if (!k)
			return NULL;
		add_kid(b, k);
	}
	*pi = close + 1;
	return b;
}

/* `( ... )` at *pi: sets [a0, a1) to its inside and moves past it. */
static int paren_part(const struct astra_syn *syn, size_t *pi, size_t end, size_t *a0, size_t *a1)
{
	size_t close;
	if (!astra_syn_is(syn, *pi, "("))
		return -1;
	close = astra_syn_match(syn, *pi);
	if (close == NONE || close >= end)
		return -1;
	*a0 = *pi + 1;
	*a1 = close;
	*pi = close + 1;
	return 0;
}

static struct astra_stmt *parse_stmt(struct astra_syn *syn, size_t *pi, size_t end,
				     struct astra_stmt *parent)
{
	size_t i = *pi, semi;
	struct astra_stmt *s, *k;

	if (i >= end)
		return NULL;
	if (syn->toks[i].kind == SYN_PP) {
		s = new_stmt(syn, STMT_PP, parent);
		s->t0 = i;
		s->t1 = i + 1;
		*pi = i + 1;
		return s;
	}
	if (astra_syn_is(syn, i, "{"))
		return parse_block(syn, pi, end, parent);
	if (astra_syn_is(syn, i, ";")) {
		s = new_stmt(syn, STMT_EMPTY, parent);
		s->t0 = i;
		s->t1 = i + 1;
		*pi = i + 1;
		return s;
	}
	if (astra_syn_is(syn, i, "if") || astra_syn_is(syn, i, "while") || astra_syn_is(syn, i, "switch")) {
		enum astra_stmt_kind kind = astra_syn_is(syn, i, "if") ? STMT_IF :
					    astra_syn_is(syn, i, "while") ? STMT_WHILE : STMT_SWITCH;
		s = new_stmt(syn, kind, parent);
		s->t0 = i;
		i++;
		if (kind == STMT_IF && astra_syn_is(syn, i, "constexpr"))
			i++;
		if (paren_part(syn, &i, end, &s->a0, &s->a1) < 0)
			return NULL;
		k = parse_stmt(syn, &i, end, s);
		if (!k)
			return NULL;
		add_kid(s, k);
		if (kind == STMT_IF && astra_syn_is(syn, i, "else")) {
			i++;
			k = parse_stmt(syn, &i, end, s);
			if (!k)
				return NULL;
			add_kid(s, k);
		}
		s->t1 = i;
		*pi = i;
		return s;
	}
	if (astra_syn_is(syn, i, "for")) {
		size_t a0, a1, s1, s2;
		s = new_stmt(syn, STMT_FOR, parent);
		s->t0 = i;
		i++;
		if (paren_part(syn, &i, end, &a0, &a1) < 0)
			return NULL;
		s1 = find_semi(syn, a0, a1);
		if (s1 == NONE) {
			s->kind = STMT_OTHER; /* range-for */
			s->a0 = a0;
			s->a1 = a1;
		} else {
			s2 = find_semi(syn, s1 + 1, a1);
			if (s2 == NONE)
				return NULL;
			s->a0 = a0;
			s->a1 = s1;
			s->b0 = s1 + 1;
			s->b1 = s2;
			s->c0 = s2 + 1;
			s->c1 = a1;
		}
		k = parse_stmt(syn, &i, end, s);
		if (!k)
			return NULL;
		add_kid(s, k);
		s->t1 = i;
		*pi = i;
		return s;
	}
	if (astra_syn_is(syn, i, "do")) {
		s = new_stmt(syn, STMT_DO, parent);
		s->t0 = i;
		i++;
		k = parse_stmt(syn, &i, end, s);
		if (!k || !astra_syn_is(syn, i, "while"))
			return NULL;
		add_kid(s, k);
		i++;
		if (paren_part(syn, &i, end, &s->a0, &s->a1) < 0 || !astra_syn_is(syn, i, ";"))
			return NULL;
		s->t1 = i + 1;
		*pi = i + 1;
		return s;
	}
	if (astra_syn_is(syn, i, "case") || astra_syn_is(syn, i, "default") ||
	    (astra_syn_is_ident(syn, i) && astra_syn_is(syn, i + 1, ":"))) {
		size_t j = i;
		while (j < end && !astra_syn_is(syn, j, ":"))
			j++;
		if (j >= end)
			return NULL;
		s = new_stmt(syn, STMT_LABEL, parent);
		s->t0 = i;
		s->t1 = j + 1;
		*pi = j + 1;
		return s;
	}
	semi = find_semi(syn, i, end);
	if (semi == NONE)
		return NULL;
	if (astra_syn_is(syn, i, "return"))
		s = new_stmt(syn, STMT_RETURN, parent);
	else if (astra_syn_is(syn, i, "break"))
		s = new_stmt(syn, STMT_BREAK, parent);
	else if (astra_syn_is(syn, i, "continue"))
		s = new_stmt(syn, STMT_CONTINUE, parent);
	else if (astra_syn_is(syn, i, "goto"))
		s = new_stmt(syn, STMT_GOTO, parent);
	else if (astra_syn_is(syn, i, "asm") || astra_syn_is(syn, i, "__asm__") ||
		 astra_syn_is(syn, i, "__asm") || astra_syn_is(syn, i, "using") ||
		 astra_syn_is(syn, i, "typedef") || astra_syn_is(syn, i, "static_assert"))
		s = new_stmt(syn, STMT_OTHER, parent);
	else if (astra_syn_looks_like_decl(syn, i, semi))
		s = new_stmt(syn, STMT_DECL, parent);
	else
		s = new_stmt(syn, STMT_EXPR, parent);
	s->t0 = i;
	s->t1 = semi + 1;
	s->a0 = i;
	s->a1 = semi;
	*pi = semi + 1;
	return s;
}

static const char *const kernel_attrs[] = {
	"__launch_bounds__", "__maxnreg__", "__cluster_dims__", "__noinline__", "__forceinline__",
	"__attribute__", "alignas", NULL,
};

int astra_syn_parse_kernel(struct astra_syn *syn)
{
	size_t i, g = NONE, open = NONE, close, body;
	for (i = 0; i < syn->nr_toks; i++)
		if (astra_syn_is(syn, i, "__global__")) {
			g = i;
			break;
		}
	if (g == NONE)
		return -1;
	/* Template parameters declared with typename/class are types. */
	if (astra_syn_is(syn, 0, "template")) {
		for (i = 1; i < g; i++)
			if ((astra_syn_is(syn, i, "typename") || astra_syn_is(syn, i, "class")) &&
			    astra_syn_is_ident(syn, i + 1)) {
				char *n = astra_syn_tokstr(syn, i + 1);
				astra_syn_add_type(syn, n);
				free(n);
			}
	}
	for (i = g + 1; i < syn->nr_toks; i++) {
		if (syn->toks[i].kind == SYN_IDENT &&
		    in_list(kernel_attrs, syn->text + syn->toks[i].off, syn->toks[i].len)) {
			if (astra_syn_is(syn, i + 1, "(")) {
				i = astra_syn_match(syn, i + 1);
				if (i == NONE)
					return -1;
			}
			continue;
		}
		if (astra_syn_is_ident(syn, i) && astra_syn_is(syn, i + 1, "(")) {
			syn->name_tok = i;
			open = i + 1;
			break;
		}
	}
	if (open == NONE)
		return -1;
	close = astra_syn_match(syn, open);
	if (close == NONE)
		return -1;
	syn->params0 = open + 1;
	syn->params1 = close;
	body = close + 1;
	while (body < syn->nr_toks && !astra_syn_is(syn, body, "{")) {
		if (astra_syn_is(syn, body, ";"))
			return -1; /* a declaration, not a definition */
		body++;
	}
	if (body >= syn->nr_toks)
		return -1;
	syn->body = parse_block(syn, &body, syn->nr_toks, NULL);
	return syn->body ? 0 : -1;
}

int astra_syn_walk(struct astra_stmt *s, astra_stmt_fn fn, void *data)
{
	size_t i;
	int r;
	if (!s)
		return 0;
	r = fn(s, data);
	if (r)
		return r;
	for (i = 0; i < s->nr_kids; i++) {
		r = astra_syn_walk(s->kids[i], fn, data);
		if (r)
			return r;
	}
	return 0;
}

/* ------------------------------------------------------------ declarations */

static int is_ptr_tok(const struct astra_syn *syn, size_t i)
{
	return astra_syn_is(syn, i, "*") || astra_syn_is(syn, i, "&") || astra_syn_is(syn, i, "const") ||
	       astra_syn_is(syn, i, "__restrict__") || astra_syn_is(syn, i, "restrict") ||
	       astra_syn_is(syn, i, "volatile");
}

static size_t skip_type1(const struct astra_syn *syn, size_t i, size_t end);

static const char *const type_keywords[] = {
	"void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "auto", NULL,
};

/*
 * Skip a type specifier starting at i; returns its end, or i when there is
 * none.  A type name used as a variable's name (`int half = 2;`) ends the
 * type before it.
 */
static size_t skip_type(const struct astra_syn *syn, size_t i, size_t end)
{
	size_t e = skip_type1(syn, i, end), j = e;
	while (j < end && is_ptr_tok(syn, j))
		j++;
	if (e > i + 1 && j == e && !astra_syn_is_ident(syn, j) && astra_syn_is_ident(syn, e - 1) &&
	    !in_list(type_keywords, syn->text + syn->toks[e - 1].off, syn->toks[e - 1].len) &&
	    !tok_is_qual(syn, e - 1) && !astra_syn_is(syn, e - 2, "::"))
		return e - 1;
	return e;
}

static size_t skip_type1(const struct astra_syn *syn, size_t i, size_t end)
{
	size_t start = i;
	int have_type = 0;
	while (i < end) {
		if (tok_is_qual(syn, i)) {
			if ((astra_syn_is(syn, i, "__align__") || astra_syn_is(syn, i, "alignas")) &&
			    astra_syn_is(syn, i + 1, "(")) {
				size_t m = astra_syn_match(syn, i + 1);
				if (m == NONE || m >= end)
					return start;
				i = m + 1;
				continue;
			}
			i++;
			continue;
		}
		if (tok_is_type(syn, i)) {
			/* long long, unsigned int: several type words */
			have_type = 1;
			i++;
			if (astra_syn_is(syn, i, "<")) {
				int depth = 0;
				for (; i < end; i++) {
					if (astra_syn_is(syn, i, "<"))
						depth++;
					else if (astra_syn_is(syn, i, ">"))
						depth--;
					else if (astra_syn_is(syn, i, ">>"))
						depth -= 2;
					if (depth <= 0)
						break;
				}
				if (i >= end)
					return start;
				i++;
			}
			continue;
		}
		if (astra_syn_is_ident(syn, i) && astra_syn_is(syn, i + 1, "::")) {
			i += 2;
			continue;
		}
		if (!have_type && astra_syn_is_ident(syn, i) && !tok_is_qual(syn, i)) {
			/* An unknown type name: `Foo x`, `Foo *x`. */
			size_t j = i + 1;
			while (j < end && is_ptr_tok(syn, j))
				j++;
			if (astra_syn_is_ident(syn, j) && !tok_is_qual(syn, j) && j > i) {
				have_type = 1;
				i++;
				continue;
			}
		}
		break;
	}
	return have_type ? i : start;
}

int astra_syn_looks_like_decl(const struct astra_syn *syn, size_t t0, size_t t1)
{
	size_t i = skip_type(syn, t0, t1);
	if (i == t0)
		return 0;
	while (i < t1 && is_ptr_tok(syn, i))
		i++;
	if (!astra_syn_is_ident(syn, i))
		return 0;
	i++;
	return i >= t1 || astra_syn_is(syn, i, "=") || astra_syn_is(syn, i, ";") ||
	       astra_syn_is(syn, i, ",") || astra_syn_is(syn, i, "[") || astra_syn_is(syn, i, "(") ||
	       astra_syn_is(syn, i, "{");
}

size_t astra_syn_decls(const struct astra_syn *syn, size_t t0, size_t t1, struct astra_decl **out)
{
	size_t ty1 = skip_type(syn, t0, t1), i, n = 0, alloc = 0;
	struct astra_decl *d = NULL;
	if (ty1 == t0)
		return 0;
	i = ty1;
	while (i < t1) {
		struct astra_decl one;
		memset(&one, 0, sizeof(one));
		one.ty0 = t0;
		one.ty1 = ty1;
		one.ptr0 = i;
		while (i < t1 && is_ptr_tok(syn, i))
			i++;
		one.ptr1 = i;
		if (!astra_syn_is_ident(syn, i))
			goto fail;
		one.name = i++;
		while (astra_syn_is(syn, i, "[")) {
			size_t m = astra_syn_match(syn, i);
			if (m == NONE || m >= t1)
				goto fail;
			if (!one.is_array) {
				one.dim0 = i + 1;
				one.dim1 = m;
			}
			one.is_array = 1;
			i = m + 1;
		}
		if (astra_syn_is(syn, i, "=")) {
			size_t j = i + 1;
			one.init0 = j;
			while (j < t1 && !astra_syn_is(syn, j, ",")) {
				if (astra_syn_is(syn, j, "(") || astra_syn_is(syn, j, "[") || astra_syn_is(syn, j, "{")) {
					j = astra_syn_match(syn, j);
					if (j == NONE || j >= t1)
						goto fail;
				}
				j++;
			}
			one.init1 = j;
			i = j;
		} else if (astra_syn_is(syn, i, "(") || astra_syn_is(syn, i, "{")) {
			size_t m = astra_syn_match(syn, i);
			if (m == NONE || m >= t1)
				goto fail;
			one.init0 = i + 1;
			one.init1 = m;
			i = m + 1;
		}
		ALLOC_GROW(d, n + 1, alloc);
		d[n++] = one;
		if (i < t1) {
			if (!astra_syn_is(syn, i, ","))
				goto fail;
			i++;
		}
	}
	*out = d;
	return n;
fail:
	free(d);
	return 0;
}

/* ------------------------------------------------------------- expressions */

struct eparser {
	struct astra_syn *syn;
	size_t i, end;
	int fail;
};

static struct astra_expr *new_expr(struct astra_syn *syn, enum astra_expr_kind kind, size_t t0)
{
	struct astra_expr *e = xcalloc(1, sizeof(*e));
	e->kind = kind;
	e->t0 = t0;
	ALLOC_GROW(syn->exprs, syn->nr_exprs + 1, syn->alloc_exprs);
	syn->exprs[syn->nr_exprs++] = e;
	return e;
}

static void set_kid(struct astra_expr *p, struct astra_expr **slot, struct astra_expr *k)
{
	*slot = k;
	if (k)
		k->parent = p;
}

static int pis(struct eparser *p, const char *s)
{
	return p->i < p->end && astra_syn_is(p->syn, p->i, s);
}

static struct astra_expr *parse_comma(struct eparser *p);
static struct astra_expr *parse_assign(struct eparser *p);
static struct astra_expr *parse_unary(struct eparser *p);

static int binprec(struct eparser *p)
{
	static const struct {
		const char *op;
		int prec;
	} ops[] = {
		{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 }, { "==", 6 }, { "!=", 6 },
		{ "<", 7 }, { ">", 7 }, { "<=", 7 }, { ">=", 7 }, { "<<", 8 }, { ">>", 8 }, { "+", 9 },
		{ "-", 9 }, { "*", 10 }, { "/", 10 }, { "%", 10 },
	};
	size_t k;
	if (p->i >= p->end || p->syn->toks[p->i].kind != SYN_PUNCT)
		return 0;
	for (k = 0; k < ARRAY_SIZE(ops); k++)
		if (astra_syn_is(p->syn, p->i, ops[k].op))
			return ops[k].prec;
	return 0;
}

/* Tokens [i, close) are a type name: qualifiers, type words, `*`, `&`, `::`, <...>. */
static int tokens_are_type(struct astra_syn *syn, size_t i, size_t close)
{
	int have = 0;
	for (; i < close; i++) {
		if (tok_is_type(syn, i) || tok_is_qual(syn, i)) {
			have |= tok_is_type(syn, i);
			continue;
		}
		if (astra_syn_is(syn, i, "*") || astra_syn_is(syn, i, "&") || astra_syn_is(syn, i, "::"))
			continue;
		if (astra_syn_is_ident(syn, i) && astra_syn_is(syn, i + 1, "::"))
			continue;
		if (astra_syn_is_ident(syn, i) && i > 0 && astra_syn_is(syn, i - 1, "::")) {
			have = 1;
			continue;
		}
		if (astra_syn_is(syn, i, "<") || astra_syn_is(syn, i, ">") || astra_syn_is(syn, i, ",") ||
		    syn->toks[i].kind == SYN_NUMBER)
			continue;
		return 0;
	}
	return have;
}

static int starts_operand(struct eparser *p, size_t i)
{
	struct astra_syn *syn = p->syn;
	if (i >= p->end)
		return 0;
	if (syn->toks[i].kind != SYN_PUNCT)
		return 1;
	return astra_syn_is(syn, i, "(") || astra_syn_is(syn, i, "!") || astra_syn_is(syn, i, "~") ||
	       astra_syn_is(syn, i, "-") || astra_syn_is(syn, i, "+") || astra_syn_is(syn, i, "*") ||
	       astra_syn_is(syn, i, "&") || astra_syn_is(syn, i, "++") || astra_syn_is(syn, i, "--") ||
	       astra_syn_is(syn, i, "::");
}

/* After `<` at i: the matching `>` index when <...> reads as template arguments. */
static size_t template_close(struct eparser *p, size_t i)
{
	int depth = 0;
	size_t j;
	for (j = i; j < p->end; j++) {
		if (astra_syn_is(p->syn, j, "<"))
			depth++;
		else if (astra_syn_is(p->syn, j, ">"))
			depth--;
		else if (astra_syn_is(p->syn, j, ">>"))
			depth -= 2;
		else if (astra_syn_is(p->syn, j, ";") || astra_syn_is(p->syn, j, "{") ||
			 astra_syn_is(p->syn, j, "&&") || astra_syn_is(p->syn, j, "||"))
			return NONE;
		if (depth <= 0)
			break;
	}
	if (j >= p->end || depth < 0)
		return NONE;
	if (!tokens_are_type(p->syn, i + 1, j) && !(j == i + 2 && p->syn->toks[i + 1].kind == SYN_NUMBER))
		return NONE;
	return j;
}

/*
 * e's operand a: the comma expression from token `from` to the bracket at
 * `close`, which it must fill; e ends after the bracket, and so does p.
 */
static struct astra_expr *parse_enclosed(struct eparser *p, struct astra_expr *e, size_t from, size_t close)
{
	struct eparser q = *p;
	q.i = from;
	q.end = close;
	set_kid(e, &e->a, parse_comma(&q));
	if (q.fail || q.i != close) {
		p->fail = 1;
		return NULL;
	}
	e->t1 = close + 1;
	p->i = close + 1;
	return e;
}

static struct astra_expr *parse_primary(struct eparser *p)
{
	struct astra_syn *syn = p->syn;
	struct astra_expr *e;
	size_t i = p->i;

	if (i >= p->end) {
		p->fail = 1;
		return NULL;
	}
	if (astra_syn_is(syn, i, "(")) {
		size_t close = astra_syn_match(syn, i);
		if (close == NONE || close >= p->end) {
			p->fail = 1;
			return NULL;
		}
		e = new_expr(syn, EX_PAREN, i);
		return parse_enclosed(p, e, i + 1, close);
	}
	if (astra_syn_is(syn, i, "{")) {
		size_t close = astra_syn_match(syn, i);
		if (close == NONE || close >= p->end) {
			p->fail = 1;
			return NULL;
		}
		e = new_expr(syn, EX_BRACE, i);
		e->t1 = close + 1;
		p->i = close + 1;
		return e;
	}
	if (syn->toks[i].kind == SYN_NUMBER || syn->toks[i].kind == SYN_STRING ||
	    syn->toks[i].kind == SYN_CHAR) {
		e = new_expr(syn, EX_LIT, i);
		p->i = i + 1;
		while (p->i < p->end && syn->toks[p->i].kind == SYN_STRING)
			p->i++;
		e->t1 = p->i;
		return e;
	}
	if (syn->toks[i].kind == SYN_IDENT || astra_syn_is(syn, i, "::")) {
		size_t j = i;
		if (astra_syn_is(syn, j, "::"))
			j++;
		/* static_cast<T>(x) and friends */
		if (astra_syn_is(syn, j, "static_cast") || astra_syn_is(syn, j, "reinterpret_cast") ||
		    astra_syn_is(syn, j, "const_cast")) {
			size_t lt = j + 1, gt, close;
			if (!astra_syn_is(syn, lt, "<")) {
				p->fail = 1;
				return NULL;
			}
			p->i = lt;
			gt = template_close(p, lt);
			if (gt == NONE || !astra_syn_is(syn, gt + 1, "(")) {
				p->fail = 1;
				return NULL;
			}
			close = astra_syn_match(syn, gt + 1);
			if (close == NONE || close >= p->end) {
				p->fail = 1;
				return NULL;
			}
			e = new_expr(syn, EX_CAST, i);
			e->ty0 = lt + 1;
			e->ty1 = gt;
			return parse_enclosed(p, e, gt + 2, close);
		}
		if (astra_syn_is(syn, j, "sizeof") || astra_syn_is(syn, j, "alignof")) {
			e = new_expr(syn, EX_OTHER, i);
			if (astra_syn_is(syn, j + 1, "(")) {
				size_t close = astra_syn_match(syn, j + 1);
				if (close == NONE || close >= p->end) {
					p->fail = 1;
					return NULL;
				}
				p->i = close + 1;
			} else {
				p->i = j + 1;
				set_kid(e, &e->a, parse_unary(p));
			}
			e->t1 = p->i;
			return e;
		}
		/* qualified names a::b::c */
		while (astra_syn_is_ident(syn, j) && astra_syn_is(syn, j + 1, "::") && astra_syn_is_ident(syn, j + 2))
			j += 2;
		if (!astra_syn_is_ident(syn, j)) {
			p->fail = 1;
			return NULL;
		}
		e = new_expr(syn, EX_IDENT, i);
		p->i = j + 1;
		/* f<float>(x), max<int>(a, b) */
		if (astra_syn_is(syn, p->i, "<")) {
			size_t gt = template_close(p, p->i);
			if (gt != NONE && (astra_syn_is(syn, gt + 1, "(") || astra_syn_is(syn, gt + 1, "{") ||
					   astra_syn_is(syn, gt + 1, "::")))
				p->i = gt + 1;
		}
		/* Type{...} */
		if (astra_syn_is(syn, p->i, "{") && tok_is_type(syn, j)) {
			size_t close = astra_syn_match(syn, p->i);
			if (close == NONE || close >= p->end) {
				p->fail = 1;
				return NULL;
			}
			e->kind = EX_BRACE;
			p->i = close + 1;
		}
		e->t1 = p->i;
		return e;
	}
	p->fail = 1;
	return NULL;
}

static struct astra_expr *parse_postfix(struct eparser *p)
{
	struct astra_syn *syn = p->syn;
	struct astra_expr *e = parse_primary(p), *n;
	while (!p->fail && p->i < p->end) {
		size_t i = p->i;
		if (astra_syn_is(syn, i, "[") || astra_syn_is(syn, i, "(")) {
			size_t close = astra_syn_match(syn, i);
			struct eparser q;
			if (close == NONE || close >= p->end) {
				p->fail = 1;
				return NULL;
			}
			n = new_expr(syn, astra_syn_is(syn, i, "[") ? EX_INDEX : EX_CALL, e->t0);
			n->op = i;
			set_kid(n, &n->a, e);
			q = *p;
			q.i = i + 1;
			q.end = close;
			if (n->kind == EX_INDEX) {
				set_kid(n, &n->b, parse_comma(&q));
			} else {
				while (q.i < close && !q.fail) {
					struct astra_expr *arg = parse_assign(&q);
					if (q.fail)
						break;
					ALLOC_GROW(n->args, n->nr_args + 1, n->alloc_args);
					n->args[n->nr_args++] = arg;
					arg->parent = n;
					if (q.i < close) {
						if (!astra_syn_is(syn, q.i, ",")) {
							q.fail = 1;
							break;
						}
						q.i++;
					}
				}
			}
			if (q.fail || q.i != close) {
				p->fail = 1;
				return NULL;
			}
			n->t1 = close + 1;
			p->i = close + 1;
			e = n;
			continue;
		}
		if (astra_syn_is(syn, i, ".") || astra_syn_is(syn, i, "->")) {
			if (!astra_syn_is_ident(syn, i + 1) || i + 1 >= p->end) {
				p->fail = 1;
				return NULL;
			}
			n = new_expr(syn, EX_MEMBER, e->t0);
			n->op = i;
			set_kid(n, &n->a, e);
			n->t1 = i + 2;
			p->i = i + 2;
			e = n;
			continue;
		}
		if (astra_syn_is(syn, i, "++") || astra_syn_is(syn, i, "--")) {
			n = new_expr(syn, EX_POSTFIX, e->t0);
			n->op = i;
			set_kid(n, &n->a, e);
			n->t1 = i + 1;
			p->i = i + 1;
			e = n;
			continue;
		}
		break;
	}
	return p->fail ? NULL : e;
}

static struct astra_expr *parse_unary(struct eparser *p)
{
	struct astra_syn *syn = p->syn;
	size_t i = p->i;
	struct astra_expr *e;
	if (i >= p->end) {
		p->fail = 1;
		return NULL;
	}
	if (astra_syn_is(syn, i, "-") || astra_syn_is(syn, i, "+") || astra_syn_is(syn, i, "!") ||
	    astra_syn_is(syn, i, "~") || astra_syn_is(syn, i, "*") || astra_syn_is(syn, i, "&") ||
	    astra_syn_is(syn, i, "++") || astra_syn_is(syn, i, "--")) {
		e = new_expr(syn, EX_UNARY, i);
		e->op = i;
		p->i = i + 1;
		set_kid(e, &e->a, parse_unary(p));
		e->t1 = p->i;
		return p->fail ? NULL : e;
	}
	if (astra_syn_is(syn, i, "(")) {
		size_t close = astra_syn_match(syn, i);
		if (close != NONE && close < p->end && close > i + 1 && tokens_are_type(syn, i + 1, close) &&
		    starts_operand(p, close + 1)) {
			e = new_expr(syn, EX_CAST, i);
			e->ty0 = i + 1;
			e->ty1 = close;
			p->i = close + 1;
			set_kid(e, &e->a, parse_unary(p));
			e->t1 = p->i;
			return p->fail ? NULL : e;
		}
	}
	return parse_postfix(p);
}

static struct astra_expr *parse_binary(struct eparser *p, int minprec)
{
	struct astra_expr *lhs = parse_unary(p);
	while (!p->fail) {
		int prec = binprec(p);
		size_t op = p->i;
		struct astra_expr *rhs, *n;
		if (!prec || prec < minprec)
			break;
		p->i++;
		rhs = parse_binary(p, prec + 1);
		if (p->fail)
			return NULL;
		n = new_expr(p->syn, EX_BINARY, lhs->t0);
		n->op = op;
		set_kid(n, &n->a, lhs);
		set_kid(n, &n->b, rhs);
		n->t1 = rhs->t1;
		lhs = n;
	}
	return p->fail ? NULL : lhs;
}

static int is_assign_op(struct eparser *p)
{
	static const char *const ops[] = { "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", NULL };
	const char *const *o;
	for (o = ops; *o; o++)
		if (pis(p, *o))
			return 1;
	return 0;
}

static struct astra_expr *parse_assign(struct eparser *p)
{
	struct astra_expr *c = parse_binary(p, 1), *n;
	if (p->fail)
		return NULL;
	if (pis(p, "?")) {
		n = new_expr(p->syn, EX_COND, c->t0);
		n->op = p->i;
		set_kid(n, &n->a, c);
		p->i++;
		set_kid(n, &n->b, parse_comma(p));
		if (p->fail || !pis(p, ":")) {
			p->fail = 1;
			return NULL;
		}
		p->i++;
		set_kid(n, &n->c, parse_assign(p));
		if (p->fail)
			return NULL;
		n->t1 = n->c->t1;
		return n;
	}
	if (is_assign_op(p)) {
		n = new_expr(p->syn, EX_ASSIGN, c->t0);
		n->op = p->i;
		set_kid(n, &n->a, c);
		p->i++;
		set_kid(n, &n->b, parse_assign(p));
		if (p->fail)
			return NULL;
		n->t1 = n->b->t1;
		return n;
	}
	return c;
}

static struct astra_expr *parse_comma(struct eparser *p)
{
	struct astra_expr *e = parse_assign(p), *n;
	while (!p->fail && pis(p, ",")) {
		n = new_expr(p->syn, EX_COMMA, e->t0);
		n->op = p->i;
		p->i++;
		set_kid(n, &n->a, e);
		set_kid(n, &n->b, parse_assign(p));
		if (p->fail)
			return NULL;
		n->t1 = n->b->t1;
		e = n;
	}
	return p->fail ? NULL : e;
}

struct astra_expr *astra_syn_expr(struct astra_syn *syn, size_t t0, size_t t1)
{
	struct eparser p;
	struct astra_expr *e;
	if (t0 >= t1)
		return NULL;
	p.syn = syn;
	p.i = t0;
	p.end = t1;
	p.fail = 0;
	e = parse_comma(&p);
	if (p.fail || p.i != t1)
		return NULL;
	return e;
}

size_t astra_expr_kids(const struct astra_expr *e, struct astra_expr **kids, size_t max)
{
	size_t n = 0, i;
	if (e->a && n < max)
		kids[n++] = e->a;
	if (e->b && n < max)
		kids[n++] = e->b;
	if (e->c && n < max)
		kids[n++] = e->c;
	for (i = 0; i < e->nr_args && n < max; i++)
		kids[n++] = e->args[i];
	return n;
}

int astra_expr_walk(struct astra_expr *e, astra_expr_fn fn, void *data)
{
	struct astra_expr *kids[64];
	size_t n, i;
	int r;
	if (!e)
		return 0;
	r = fn(e, data);
	if (r)
		return r;
	n = astra_expr_kids(e, kids, ARRAY_SIZE(kids));
	for (i = 0; i < n; i++) {
		r = astra_expr_walk(kids[i], fn, data);
		if (r)
			return r;
	}
	return 0;
}

char *astra_expr_splice(const struct astra_syn *syn, const struct astra_expr *e, char **texts, size_t nr)
{
	struct astra_expr *kids[64];
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t n = astra_expr_kids(e, kids, ARRAY_SIZE(kids)), i, pos = astra_syn_off(syn, e->t0);
	size_t end = astra_syn_end(syn, e->t1 - 1);
	for (i = 0; i < n && i < nr; i++) {
		size_t ks = astra_syn_off(syn, kids[i]->t0), ke = astra_syn_end(syn, kids[i]->t1 - 1);
		if (ks < pos)
			continue; /* not in order: keep the original text */
		astra_buf_add(&b, syn->text + pos, ks - pos);
		astra_buf_adds(&b, texts[i]);
		pos = ke;
	}
	astra_buf_add(&b, syn->text + pos, end - pos);
	return astra_buf_detach(&b, NULL);
}

char *astra_expr_rewrite(struct astra_syn *syn, struct astra_expr *e, astra_expr_rw_fn fn, void *data)
{
	struct astra_expr *kids[64];
	char *texts[64], *r;
	size_t n = astra_expr_kids(e, kids, ARRAY_SIZE(kids)), i;
	for (i = 0; i < n; i++)
		texts[i] = astra_expr_rewrite(syn, kids[i], fn, data);
	r = fn ? fn(syn, e, texts, n, data) : NULL;
	if (!r)
		r = astra_expr_splice(syn, e, texts, n);
	for (i = 0; i < n; i++)
		free(texts[i]);
	return r;
}

/* ------------------------------------------------------------------ edits */

void astra_syn_edit_owned(struct astra_syn_edits *e, size_t start, size_t end, char *text)
{
	ALLOC_GROW(e->items, e->nr + 1, e->alloc);
	e->items[e->nr].start = start;
	e->items[e->nr].end = end;
	e->items[e->nr].text = text;
	e->nr++;
}

void astra_syn_edit(struct astra_syn_edits *e, size_t start, size_t end, const char *text)
{
	astra_syn_edit_owned(e, start, end, xstrdup(text));
}

void astra_syn_edits_release(struct astra_syn_edits *e)
{
	size_t i;
	for (i = 0; i < e->nr; i++)
		free(e->items[i].text);
	free(e->items);
	memset(e, 0, sizeof(*e));
}

static int edit_cmp(const void *a, const void *b)
{
	const struct astra_syn_edit *x = *(struct astra_syn_edit *const *)a, *y = *(struct astra_syn_edit *const *)b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x < y ? -1 : x > y;
}

int astra_syn_apply(const char *text, size_t from, size_t to, const struct astra_syn_edits *e,
		    struct astra_buf *out)
{
	struct astra_syn_edit **v = xmalloc((e->nr + 1) * sizeof(*v));
	size_t i, n = 0, pos = from;
	for (i = 0; i < e->nr; i++)
		if (e->items[i].start >= from && e->items[i].end <= to)
			v[n++] = &e->items[i];
	qsort(v, n, sizeof(*v), edit_cmp);
	for (i = 0; i < n; i++) {
		if (v[i]->start < pos) {
			free(v);
			return -1;
		}
		astra_buf_add(out, text + pos, v[i]->start - pos);
		astra_buf_adds(out, v[i]->text);
		pos = v[i]->end;
	}
	astra_buf_add(out, text + pos, to - pos);
	free(v);
	return 0;
}

int astra_syn_is_name(const struct astra_syn *syn, const struct astra_expr *e, const char *name)
{
	while (e && e->kind == EX_PAREN)
		e = e->a;
	return e && e->kind == EX_IDENT && e->t1 == e->t0 + 1 && astra_syn_is(syn, e->t0, name);
}

struct astra_expr *astra_syn_argmax_value(const struct astra_syn *syn, struct astra_expr *e, const char *best,
					  const char *bv)
{
	while (e && e->kind == EX_PAREN)
		e = e->a;
	if (!e || e->kind != EX_BINARY)
		return NULL;
	if (astra_syn_is(syn, e->op, "&&")) {
		struct astra_expr *r = astra_syn_argmax_value(syn, e->a, best, bv);
		return r ? r : astra_syn_argmax_value(syn, e->b, best, bv);
	}
	if (astra_syn_is(syn, e->op, "||")) {
		struct astra_expr *x = e->a, *y = e->b, *lt, *gt;
		while (x->kind == EX_PAREN)
			x = x->a;
		while (y->kind == EX_PAREN)
			y = y->a;
		lt = x;
		gt = y;
		if (!(lt->kind == EX_BINARY && astra_syn_is(syn, lt->op, "<"))) {
			lt = y;
			gt = x;
		}
		if (lt->kind == EX_BINARY && astra_syn_is(syn, lt->op, "<") && astra_syn_is_name(syn, lt->a, best) &&
		    lt->b->kind == EX_LIT && astra_syn_is(syn, lt->b->t0, "0") && gt->kind == EX_BINARY &&
		    astra_syn_is(syn, gt->op, ">") && astra_syn_is_name(syn, gt->b, bv))
			return gt->a;
	}
	return NULL;
}
