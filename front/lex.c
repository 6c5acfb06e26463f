/*
 * lex.c - the one C++ lexer for text libclang does not see (see lex.h).
 *
 * Kept apart from extract.c (which reads files through libclang) because
 * the text it reads never went through extraction: optimizers' variants,
 * the rules' own rewrites, macro bodies.  One lexer, so that a comment, a
 * raw string or a spliced directive means the same to every reader.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <string.h>

#include "lib/util.h"
#include "front/lex.h"

static const char *const puncts3[] = { ">>=", "<<=", "->*", "...", NULL };
static const char *const puncts2[] = {
	"::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
	"*=", "/=", "%=", "&=", "|=", "^=", ".*", "##", NULL,
};

int astra_lex_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$' || (c & 0x80);
}

int astra_lex_is(const char *text, const struct astra_lex_tok *t, const char *s)
{
	size_t n = strlen(s);
	return t->len == n && !memcmp(text + t->off, s, n);
}

struct lx {
	const char *s;
	size_t n;
	unsigned flags;
	unsigned line;
	struct astra_lexed *out;
};

static void push(struct lx *L, enum astra_lex_kind kind, size_t off, size_t end, unsigned line)
{
	struct astra_lexed *o = L->out;
	ALLOC_GROW(o->toks, o->nr + 1, o->alloc);
	o->toks[o->nr].kind = kind;
	o->toks[o->nr].off = off;
	o->toks[o->nr].len = end - off;
	o->toks[o->nr].line = line;
	o->nr++;
}

/* Length of a backslash-newline at p (0 if none). */
static size_t splice_at(const struct lx *L, size_t p)
{
	if (p < L->n && L->s[p] == '\\') {
		if (p + 1 < L->n && L->s[p + 1] == '\n')
			return 2;
		if (p + 2 < L->n && L->s[p + 1] == '\r' && L->s[p + 2] == '\n')
			return 3;
	}
	return 0;
}

static int fail(struct lx *L, const char *what, size_t off, unsigned line)
{
	if (L->flags & ASTRA_LEX_LENIENT)
		return 0;
	L->out->error = what;
	L->out->error_off = off;
	L->out->error_line = line;
	return -1;
}

/* Count the newlines of [a, b) into the line number. */
static void lines(struct lx *L, size_t a, size_t b)
{
	for (; a < b; a++)
		if (L->s[a] == '\n')
			L->line++;
}

/* A comment at p (the text there is // or slash-star); returns its end, or (size_t)-1 when unterminated. */
static size_t comment_end(struct lx *L, size_t p)
{
	if (L->s[p + 1] == '/') {
		while (p < L->n && L->s[p] != '\n') {
			size_t sp = splice_at(L, p);
			p += sp ? sp : 1;
		}
		return p;
	}
	for (p += 2; p + 1 < L->n; p++)
		if (L->s[p] == '*' && L->s[p + 1] == '/')
			return p + 2;
	return (size_t)-1;
}

static int is_comment(const struct lx *L, size_t p)
{
	return L->s[p] == '/' && p + 1 < L->n && (L->s[p + 1] == '/' || L->s[p + 1] == '*');
}

/* A quoted literal from the quote at p: its end, or (size_t)-1 at a newline or the end. */
static size_t quoted_end(const struct lx *L, size_t p)
{
	char q = L->s[p++];
	while (p < L->n && L->s[p] != q && L->s[p] != '\n') {
		if (L->s[p] == '\\' && p + 1 < L->n)
			p++;
		p++;
	}
	return p < L->n && L->s[p] == q ? p + 1 : (size_t)-1;
}

/* A raw string R"delim( ... )delim" from the quote at p: its end, or (size_t)-1. */
static size_t raw_end(const struct lx *L, size_t p)
{
	size_t d = ++p, n;
	while (p < L->n && L->s[p] != '(' && p - d < 16)
		p++;
	if (p >= L->n || L->s[p] != '(')
		return (size_t)-1;
	n = p - d;
	for (p++; p < L->n; p++)
		if (L->s[p] == ')' && p + 1 + n < L->n && !memcmp(L->s + p + 1, L->s + d, n) && L->s[p + 1 + n] == '"')
			return p + 2 + n;
	return (size_t)-1;
}

/* A directive from the '#' at p: its end (the newline not spliced, or a // comment), blanks trimmed. */
static size_t directive_end(struct lx *L, size_t p)
{
	size_t e;
	while (p < L->n && L->s[p] != '\n') {
		size_t sp = splice_at(L, p);
		if (sp) {
			p += sp;
		} else if (is_comment(L, p) && L->s[p + 1] == '*') {
			size_t c = comment_end(L, p);
			p = c == (size_t)-1 ? L->n : c;
		} else if (is_comment(L, p)) {
			break;
		} else if (L->s[p] == '"' || L->s[p] == '\'') {
			size_t q = quoted_end(L, p);
			if (q == (size_t)-1)
				while (p < L->n && L->s[p] != '\n')
					p++;
			else
				p = q;
		} else {
			p++;
		}
	}
	e = p;
	while (e > 0 && (L->s[e - 1] == ' ' || L->s[e - 1] == '\t' || L->s[e - 1] == '\r'))
		e--;
	return e;
}

int astra_lex(const char *text, size_t len, unsigned flags, struct astra_lexed *out)
{
	struct lx L;
	size_t p = 0;
	int bol = 1;

	memset(out, 0, sizeof(*out));
	L.s = text;
	L.n = len;
	L.flags = flags;
	L.line = 1;
	L.out = out;
	while (p < len) {
		const char *s = text;
		size_t sp, start, e;
		unsigned line;
		if (s[p] == '\n') {
			L.line++;
			bol = 1;
			p++;
			continue;
		}
		if (s[p] == ' ' || s[p] == '\t' || s[p] == '\r' || s[p] == '\f' || s[p] == '\v') {
			p++;
			continue;
		}
		if ((sp = splice_at(&L, p)) != 0) {
			L.line++;
			p += sp;
			continue;
		}
		start = p;
		line = L.line;
		if (is_comment(&L, p)) {
			e = comment_end(&L, p);
			if (e == (size_t)-1) {
				if (fail(&L, "unterminated comment", p, line) < 0)
					return -1;
				e = len;
			}
			lines(&L, p, e);
			if (flags & ASTRA_LEX_COMMENTS)
				push(&L, ASTRA_LEX_COMMENT, start, e, line);
			p = e;
			continue;
		}
		if (s[p] == '#' && bol && !(flags & ASTRA_LEX_NO_DIRECTIVES)) {
			e = directive_end(&L, p);
			lines(&L, p, e);
			push(&L, ASTRA_LEX_PP, start, e, line);
			p = e;
			continue;
		}
		bol = 0;
		if (astra_lex_ident_char((unsigned char)s[p]) && !isdigit((unsigned char)s[p])) {
			while (p < len && astra_lex_ident_char((unsigned char)s[p]))
				p++;
			if (p < len && (s[p] == '"' || s[p] == '\'')) {
				size_t n = p - start;
				int raw = s[p - 1] == 'R' && s[p] == '"' &&
					  (n == 1 || (n == 2 && strchr("uUL", s[start])) ||
					   (n == 3 && !memcmp(s + start, "u8", 2)));
				int prefix = (n == 1 && strchr("uUL", s[start])) || (n == 2 && !memcmp(s + start, "u8", 2));
				if (raw || prefix) {
					e = raw ? raw_end(&L, p) : quoted_end(&L, p);
					if (e == (size_t)-1) {
						if (fail(&L, "unterminated string", start, line) < 0)
							return -1;
						for (e = p; e < len && (raw || s[e] != '\n'); e++)
							;
					}
					lines(&L, p, e);
					push(&L, s[p] == '"' ? ASTRA_LEX_STRING : ASTRA_LEX_CHAR, start, e, line);
					p = e;
					continue;
				}
			}
			push(&L, ASTRA_LEX_IDENT, start, p, line);
			continue;
		}
		if (isdigit((unsigned char)s[p]) || (s[p] == '.' && p + 1 < len && isdigit((unsigned char)s[p + 1]))) {
			/* a pp-number: digits, letters, dots, digit separators, and a sign after an exponent */
			p++;
			while (p < len) {
				char d = s[p];
				if ((d == '+' || d == '-') && strchr("eEpP", s[p - 1]))
					p++;
				else if (isalnum((unsigned char)d) || d == '_' || d == '.' || d == '\'')
					p++;
				else
					break;
			}
			push(&L, ASTRA_LEX_NUMBER, start, p, line);
			continue;
		}
		if (s[p] == '"' || s[p] == '\'') {
			e = quoted_end(&L, p);
			if (e == (size_t)-1) {
				if (fail(&L, s[p] == '"' ? "unterminated string" : "unterminated character constant", p,
					 line) < 0)
					return -1;
				for (e = p; e < len && s[e] != '\n'; e++)
					;
			}
			push(&L, s[p] == '"' ? ASTRA_LEX_STRING : ASTRA_LEX_CHAR, start, e, line);
			p = e;
			continue;
		}
		{
			const char *const *q;
			size_t n = 1;
			if (!(flags & ASTRA_LEX_ONE_CHAR)) {
				for (q = puncts3; *q; q++)
					if (p + 3 <= len && !memcmp(s + p, *q, 3)) {
						n = 3;
						break;
					}
				if (n == 1)
					for (q = puncts2; *q; q++)
						if (p + 2 <= len && !memcmp(s + p, *q, 2)) {
							n = 2;
							break;
						}
			}
			push(&L, ASTRA_LEX_PUNCT, start, p + n, line);
			p += n;
		}
	}
	return 0;
}

void astra_lexed_release(struct astra_lexed *l)
{
	free(l->toks);
	memset(l, 0, sizeof(*l));
}
