/*
 * pragma.c - the `#pragma astra` parser, checker and canonical form (see
 * pragma.h; the grammar is documented in doc/pragma.md).
 *
 * It is separate from extraction because it reads untrusted text without
 * any I/O or libclang, which makes it easy to unit-test and to fuzz: the
 * extractor only finds the directive lines and hands their text here.
 *
 * The parser is a small lexer (C++ tokens, plus `..` for ranges) and a
 * recursive descent over clauses.  Expressions are not evaluated: they are
 * token runs that stop at a list separator found outside brackets, where
 * brackets are (), [], {} and the <> of template arguments (a `<` right
 * after a name that has a matching `>` before the end of the enclosing
 * bracket).  Each line stops at its first mistake, so one typo gives one
 * diagnostic and not a cascade.
 */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/util.h"
#include "front/pragma.h"
#include "front/pragma-int.h"

/* ------------------------------------------------------------ diagnostics */

void astra_diags_add(struct astra_diags *d, const char *file, unsigned line, unsigned col,
		     int is_error, const char *fmt, ...)
{
	struct astra_diag *g;
	va_list ap;
	ALLOC_GROW(d->items, d->nr + 1, d->alloc);
	g = &d->items[d->nr++];
	g->file = xstrdup(file ? file : "<pragma>");
	g->line = line;
	g->col = col;
	g->is_error = is_error;
	va_start(ap, fmt);
	g->msg = xvasprintf(fmt, ap);
	va_end(ap);
}

void astra_diags_promote(struct astra_diags *d)
{
	size_t i;
	for (i = 0; i < d->nr; i++)
		d->items[i].is_error = 1;
}

char *astra_diags_format(const struct astra_diags *d)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	for (i = 0; i < d->nr; i++) {
		const struct astra_diag *g = &d->items[i];
		astra_buf_addf(&b, "%s:%u:%u: %s: %s\n", g->file, g->line, g->col,
			       g->is_error ? "error" : "warning", g->msg);
	}
	return astra_buf_detach(&b, NULL);
}

void astra_diags_release(struct astra_diags *d)
{
	size_t i;
	for (i = 0; i < d->nr; i++) {
		free(d->items[i].file);
		free(d->items[i].msg);
	}
	free(d->items);
	memset(d, 0, sizeof(*d));
}

/* ------------------------------------------------------------ data model */

void astra_pragma_init(struct astra_pragma *p)
{
	memset(p, 0, sizeof(*p));
}

static void set_release(struct astra_assign_set *s)
{
	size_t i;
	for (i = 0; i < s->nr; i++) {
		free(s->items[i].name);
		free(s->items[i].value);
	}
	free(s->items);
	memset(s, 0, sizeof(*s));
}

void astra_pragma_release(struct astra_pragma *p)
{
	size_t i, j;
	for (i = 0; i < p->nr_shapes; i++)
		set_release(&p->shapes[i]);
	free(p->shapes);
	for (i = 0; i < p->nr_buffers; i++) {
		free(p->buffers[i].name);
		free(p->buffers[i].count);
	}
	free(p->buffers);
	for (i = 0; i < p->nr_outputs; i++)
		free(p->outputs[i]);
	free(p->outputs);
	free(p->output_pos);
	free(p->grid);
	free(p->block);
	free(p->shmem);
	for (i = 0; i < p->nr_types; i++)
		set_release(&p->types[i]);
	free(p->types);
	set_release(&p->scalars);
	for (i = 0; i < p->nr_ranges; i++) {
		free(p->ranges[i].name);
		free(p->ranges[i].lo);
		free(p->ranges[i].hi);
	}
	free(p->ranges);
	for (i = 0; i < p->nr_tolerances; i++)
		free(p->tolerances[i].name);
	free(p->tolerances);
	for (i = 0; i < p->nr_tunables; i++) {
		for (j = 0; j < p->tunables[i].nr; j++)
			free(p->tunables[i].values[j]);
		free(p->tunables[i].values);
		free(p->tunables[i].name);
	}
	free(p->tunables);
	free(p->flops);
	free(p->bytes);
	astra_pragma_init(p);
}

const char *astra_assign_get(const struct astra_assign_set *set, const char *name)
{
	size_t i;
	for (i = 0; set && i < set->nr; i++)
		if (!strcmp(set->items[i].name, name))
			return set->items[i].value;
	return NULL;
}

const struct astra_bufspec *astra_pragma_buffer(const struct astra_pragma *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->nr_buffers; i++)
		if (!strcmp(p->buffers[i].name, name))
			return &p->buffers[i];
	return NULL;
}

int astra_pragma_is_output(const struct astra_pragma *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->nr_outputs; i++)
		if (!strcmp(p->outputs[i], name))
			return 1;
	return 0;
}

const struct astra_tolerance *astra_pragma_tolerance(const struct astra_pragma *p, const char *name)
{
	const struct astra_tolerance *all = NULL;
	size_t i;
	for (i = 0; i < p->nr_tolerances; i++) {
		if (!p->tolerances[i].name)
			all = &p->tolerances[i];
		else if (!strcmp(p->tolerances[i].name, name))
			return &p->tolerances[i];
	}
	return all;
}

/* ------------------------------------------------------------ lexer */



/* Longest first, so that `...` wins over `..` and `<<=` over `<<`. */
static const char *const puncts[] = {
	"...", "<<=", ">>=", "->*", "<=>",
	"..", "::", "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*",
};

static int is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_ident_char(int c)
{
	return is_ident_start(c) || is_digit(c);
}

/* Length of a backslash-newline at s (backslash, blanks, \r?\n), or 0. */
static size_t continuation(const char *s)
{
	size_t n = 1;
	if (s[0] != '\\')
		return 0;
	while (s[n] == ' ' || s[n] == '\t')
		n++;
	if (s[n] == '\r')
		n++;
	return s[n] == '\n' ? n + 1 : 0;
}

void astra_pragma_lex(struct parser *P, const char *text, unsigned line, unsigned col)
{
	const char *s = text;
	int space = 0;
	for (;;) {
		struct tok t;
		size_t n;
		int c = (unsigned char)*s;

		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			s++, col++, space = 1;
			continue;
		}
		if (c == '\n') {
			s++, line++, col = 1, space = 1;
			continue;
		}
		if ((n = continuation(s)) != 0) {
			s += n, line++, col = 1, space = 1;
			continue;
		}
		if (c == '/' && s[1] == '/') {
			while (*s && *s != '\n')
				s++, col++;
			space = 1;
			continue;
		}
		if (c == '/' && s[1] == '*') {
			s += 2, col += 2;
			while (*s && !(s[0] == '*' && s[1] == '/')) {
				if (*s == '\n')
					line++, col = 1;
				else
					col++;
				s++;
			}
			if (*s)
				s += 2, col += 2;
			space = 1;
			continue;
		}

		t.s = s;
		t.line = line;
		t.col = col;
		t.space = space;
		space = 0;
		if (!c) {
			t.kind = T_END;
			t.len = 0;
		} else if (is_ident_start(c)) {
			t.kind = T_IDENT;
			for (n = 1; is_ident_char((unsigned char)s[n]); n++)
				;
			t.len = n;
		} else if (is_digit(c) || (c == '.' && is_digit((unsigned char)s[1]))) {
			/* A pp-number, except that `..` ends it: 0..1 is 0 .. 1. */
			t.kind = T_NUMBER;
			n = 1;
			for (;;) {
				int d = (unsigned char)s[n];
				if ((d == '+' || d == '-') && strchr("eEpP", s[n - 1]))
					n++;
				else if (d == '.' && s[n + 1] == '.')
					break;
				else if (is_ident_char(d) || d == '.' || (d == '\'' && is_ident_char((unsigned char)s[n + 1])))
					n++;
				else
					break;
			}
			t.len = n;
		} else if (c == '"' || c == '\'') {
			t.kind = T_STRING;
			for (n = 1; s[n] && s[n] != c && s[n] != '\n'; n++)
				if (s[n] == '\\' && s[n + 1] && s[n + 1] != '\n')
					n++;
			if (s[n] == c)
				n++;
			else
				t.kind = T_BAD; /* unterminated */
			t.len = n;
		} else {
			size_t k;
			t.kind = T_PUNCT;
			t.len = 1;
			for (k = 0; k < ARRAY_SIZE(puncts); k++) {
				size_t pl;
				if (puncts[k][0] != c)
					continue;
				pl = strlen(puncts[k]);
				if (!strncmp(s, puncts[k], pl)) {
					t.len = pl;
					break;
				}
			}
			if (t.len == 1 && !strchr("()[]{}<>,;:=+-*/%&|^!~?.#", c))
				t.kind = T_BAD;
		}
		ALLOC_GROW(P->toks, P->nr + 1, P->alloc);
		P->toks[P->nr++] = t;
		if (t.kind == T_END)
			return;
		/* Tokens never span lines here (strings stop at a newline). */
		s += t.len;
		col += (unsigned)t.len;
	}
}

/* ------------------------------------------------------------ parser helpers */

/* = += -= *= /= %= &= |= ^= <<= >>= */
static int is_assignment(const struct tok *t)
{
	return t->kind == T_PUNCT && t->s[t->len - 1] == '=' &&
	       (t->len == 1 || (!is(t, "==") && !is(t, "!=") && !is(t, "<=") && !is(t, ">=")));
}

/* "'text'" (shortened), "the end of the line", or a stray byte in hex. */
char *astra_pragma_describe(const struct tok *t)
{
	if (t->kind == T_END)
		return xstrdup("the end of the line");
	if (t->kind == T_BAD && t->len == 1 && ((unsigned char)t->s[0] < 0x20 || (unsigned char)t->s[0] >= 0x7f))
		return xasprintf("byte 0x%02x", (unsigned char)t->s[0]);
	if (t->len > 32)
		return xasprintf("'%.29s...'", t->s);
	return xasprintf("'%.*s'", (int)t->len, t->s);
}

int astra_pragma_fail(struct parser *P, const struct tok *t, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	if (P->failed)
		return -1;
	P->failed = 1;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	astra_diags_add(P->diags, P->file, t->line, t->col, 0, "%s", msg);
	free(msg);
	return -1;
}

/* Fail with "expected WHAT, found <token>" at the current token. */
int astra_pragma_expected(struct parser *P, const char *what)
{
	char *d = astra_pragma_describe(cur(P));
	astra_pragma_fail(P, cur(P), "expected %s before %s", what, d);
	free(d);
	return -1;
}

/*
 * Does the `<` at index at open a template argument list?  It must follow
 * a name, and a matching `>` must come before anything that cannot be in
 * one (`;`, `{`, `}`, `&&`, `||`, `?`, `..`, a closing bracket that was not
 * opened inside, the end).  `a < b` with a later `>` is misread as a
 * template; C++ itself needs name lookup for that, and pragma expressions
 * rarely compare.
 */
static int opens_template(const struct parser *P, size_t at)
{
	size_t j;
	int angle = 1, paren = 0;
	if (at == 0 || P->toks[at - 1].kind != T_IDENT)
		return 0;
	for (j = at + 1; j < P->nr; j++) {
		const struct tok *t = &P->toks[j];
		if (t->kind == T_END || is(t, ";") || is(t, "{") || is(t, "}") || is(t, "&&") ||
		    is(t, "||") || is(t, "?") || is(t, ".."))
			return 0;
		if (is(t, "(") || is(t, "["))
			paren++;
		else if (is(t, ")") || is(t, "]")) {
			if (--paren < 0)
				return 0;
		} else if (paren == 0 && is(t, "<") && P->toks[j - 1].kind == T_IDENT)
			angle++;
		else if (paren == 0 && is(t, ">"))
			angle--;
		else if (paren == 0 && is(t, ">>"))
			angle -= 2;
		if (angle <= 0)
			return 1;
	}
	return 0;
}



/*
 * Collect one expression starting at the current token, up to (not
 * including) a stop token found outside brackets.  Returns its normalized
 * text (malloc'd), or NULL after a diagnostic.  what names the expected
 * thing for messages ("a value").
 */
char *astra_pragma_expr(struct parser *P, unsigned stop, const char *what)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	char stack[64];
	size_t opener[64];
	size_t depth = 0, start = P->i;

	for (;;) {
		const struct tok *t = cur(P);
		if (depth == 0) {
			if (t->kind == T_END)
				break;
			if (((stop & STOP_COMMA) && is(t, ",")) || ((stop & STOP_RPAREN) && is(t, ")")) ||
			    ((stop & STOP_RBRACKET) && is(t, "]")) || ((stop & STOP_DOTDOT) && is(t, "..")))
				break;
			if ((stop & STOP_ASSIGN) && P->i > start && t->space && t->kind == T_IDENT &&
			    is(peek(P, 1), "="))
				break;
			if ((stop & STOP_SPACE) && P->i > start && t->space)
				break;
		}
		if (t->kind == T_END) {
			const struct tok *o = &P->toks[opener[depth - 1]];
			astra_pragma_fail(P, t, "expected '%c' to close the '%.*s' at column %u",
					  stack[depth - 1] == '(' ? ')' : stack[depth - 1] == '[' ? ']' :
					  stack[depth - 1] == '{' ? '}' : '>', (int)o->len, o->s, o->col);
			goto bad;
		}
		if (t->kind == T_BAD) {
			char *d = astra_pragma_describe(t);
			astra_pragma_fail(P, t, "stray %s in %s", d, what);
			free(d);
			goto bad;
		}
		if (is(t, "(") || is(t, "[") || is(t, "{") ||
		    (is(t, "<") && P->i > start && opens_template(P, P->i))) {
			if (depth == ARRAY_SIZE(stack)) {
				astra_pragma_fail(P, t, "brackets nested too deeply");
				goto bad;
			}
			opener[depth] = P->i;
			stack[depth++] = t->s[0];
		} else if (is(t, ")") || is(t, "]") || is(t, "}")) {
			char want = t->s[0] == ')' ? '(' : t->s[0] == ']' ? '[' : '{';
			if (depth == 0) {
				char *d = astra_pragma_describe(t);
				if (!b.len)
					astra_pragma_fail(P, t, "expected %s before %s", what, d);
				else
					astra_pragma_fail(P, t, "unbalanced %s", d);
				free(d);
				goto bad;
			}
			if (stack[depth - 1] != want) {
				char close = stack[depth - 1] == '(' ? ')' : stack[depth - 1] == '[' ? ']' :
					     stack[depth - 1] == '{' ? '}' : '>';
				astra_pragma_fail(P, t, "expected '%c' before '%c'", close, t->s[0]);
				goto bad;
			}
			depth--;
		} else if (depth && stack[depth - 1] == '<' && is(t, ">")) {
			depth--;
		} else if (depth && stack[depth - 1] == '<' && is(t, ">>")) {
			depth--;
			if (depth && stack[depth - 1] == '<')
				depth--;
		} else if (depth == 0 && (is(t, ";") || is_assignment(t))) {
			/* Nothing to assign to here; `n = = 1` is a typo. */
			astra_pragma_fail(P, t, "unexpected '%.*s' in %s", (int)t->len, t->s, what);
			goto bad;
		} else if (P->i == start && is(t, "==")) {
			astra_pragma_expected(P, what);
			goto bad;
		}
		if (t->space && b.len)
			astra_buf_addch(&b, ' ');
		astra_buf_add(&b, t->s, t->len);
		P->i++;
	}
	if (!b.len) {
		astra_pragma_expected(P, what);
		goto bad;
	}
	return astra_buf_detach(&b, NULL);
bad:
	astra_buf_release(&b);
	return NULL;
}

/*
 * After a list item: `,` then another item, `)` ending the list (consumed;
 * returns 1), or (when blanks may separate items) the next item's name.
 * Returns 0 to go on, 1 at the end, -1 after a diagnostic.
 */
int astra_pragma_list_next(struct parser *P, int blank_separated, const char *after)
{
	const struct tok *t = cur(P);
	if (is(t, ",")) {
		P->i++;
		if (is(cur(P), ")")) {
			char *d = astra_pragma_describe(cur(P));
			astra_pragma_fail(P, cur(P), "expected another item after ',' before %s", d);
			free(d);
			return -1;
		}
		return 0;
	}
	if (is(t, ")")) {
		P->i++;
		return 1;
	}
	if (blank_separated && t->kind == T_IDENT && t->space)
		return 0;
	{
		char *d = astra_pragma_describe(t);
		astra_pragma_fail(P, t, "expected ',' or ')' after %s, found %s", after, d);
		free(d);
	}
	return -1;
}

int astra_pragma_open_paren(struct parser *P, const struct tok *kw)
{
	if (is(cur(P), "(")) {
		P->i++;
		return 0;
	}
	{
		char *d = astra_pragma_describe(cur(P));
		astra_pragma_fail(P, cur(P), "expected '(' after '%.*s', found %s", (int)kw->len, kw->s, d);
		free(d);
	}
	return -1;
}

int astra_pragma_close_paren(struct parser *P, const char *after)
{
	if (is(cur(P), ")")) {
		P->i++;
		return 0;
	}
	{
		char *d = astra_pragma_describe(cur(P));
		astra_pragma_fail(P, cur(P), "expected ')' after %s, found %s", after, d);
		free(d);
	}
	return -1;
}

/* A name: the current token must be an identifier. */
const struct tok *astra_pragma_name(struct parser *P, const char *what)
{
	const struct tok *t = cur(P);
	if (t->kind != T_IDENT) {
		char *d = astra_pragma_describe(t);
		astra_pragma_fail(P, t, "expected %s, found %s", what, d);
		free(d);
		return NULL;
	}
	P->i++;
	return t;
}


/* ------------------------------------------------------------ checks */

struct checker {
	const struct astra_pragma *p;
	const char *file;
	struct astra_diags *diags;
	char *const *names;
	const int *is_ptr;
	size_t nr;
	int bad;
};

static void complain(struct checker *C, struct astra_pos pos, const char *fmt, ...) ASTRA_PRINTF(3, 4);
static void complain(struct checker *C, struct astra_pos pos, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (!pos.line)
		pos.line = C->p->line, pos.col = 1;
	astra_diags_add(C->diags, C->file, pos.line, pos.col ? pos.col : 1, 0, "%s", msg);
	free(msg);
	C->bad = 1;
}

/* Index of parameter name, or -1. */
static long param(const struct checker *C, const char *nm)
{
	size_t i;
	for (i = 0; i < C->nr; i++)
		if (C->names[i] && !strcmp(C->names[i], nm))
			return (long)i;
	return -1;
}

static int in_list(char *const *list, size_t nr, const char *nm)
{
	size_t i;
	for (i = 0; i < nr; i++)
		if (list[i] && !strcmp(list[i], nm))
			return 1;
	return 0;
}

int astra_pragma_check(const struct astra_pragma *p, const char *file,
		       char *const *param_names, const int *param_is_ptr, size_t nr_params,
		       char *const *tmpl_names, const int *tmpl_optional, size_t nr_tmpl,
		       struct astra_diags *diags)
{
	struct checker C;
	struct astra_pos top;
	size_t i, j;
	int by_capture;

	if (p->flags & ASTRA_PRAGMA_OFF)
		return 0;
	/* Described by a capture (doc/capture.md): what is missing comes from the captured launches. */
	by_capture = astra_pragma_by_capture(p);
	memset(&C, 0, sizeof(C));
	C.p = p;
	C.file = file;
	C.diags = diags;
	C.names = param_names;
	C.is_ptr = param_is_ptr;
	C.nr = nr_params;
	top.line = p->line;
	top.col = 1;

	for (i = 0; i < nr_params; i++)
		if (!param_names[i] || !param_names[i][0])
			complain(&C, top, "parameter %zu of the kernel has no name; name it so that the pragma can describe it",
				 i + 1);

	/* Buffers and outputs name pointer parameters; every pointer has a buffer. */
	for (i = 0; i < p->nr_buffers; i++) {
		long k = param(&C, p->buffers[i].name);
		if (k < 0)
			complain(&C, p->buffers[i].pos, "buffer '%s' is not a parameter of the kernel", p->buffers[i].name);
		else if (!param_is_ptr[k])
			complain(&C, p->buffers[i].pos, "buffer '%s' is not a pointer parameter", p->buffers[i].name);
	}
	for (i = 0; i < nr_params && !by_capture; i++)
		if (param_is_ptr[i] && param_names[i] && param_names[i][0] && !astra_pragma_buffer(p, param_names[i]))
			complain(&C, top, "pointer parameter '%s' has no element count; expected buffers(%s[count])",
				 param_names[i], param_names[i]);
	for (i = 0; i < p->nr_outputs; i++) {
		long k = param(&C, p->outputs[i]);
		if (k < 0 || !param_is_ptr[k])
			complain(&C, p->output_pos[i], "output '%s' is not a pointer parameter of the kernel", p->outputs[i]);
		else if (param_is_ptr[k] == 2)
			complain(&C, p->output_pos[i], "output '%s' points to const data, so the kernel cannot write it",
				 p->outputs[i]);
	}
	if (!p->nr_outputs && !by_capture) {
		struct astra_buf b = ASTRA_BUF_INIT;
		for (i = 0; i < nr_params; i++)
			if (param_is_ptr[i] == 1 && param_names[i] && param_names[i][0])
				astra_buf_addf(&b, "%s%s", b.len ? ", " : "", param_names[i]);
		if (b.len)
			complain(&C, top, "no outputs(); name the buffers the kernel writes, e.g. outputs(%s)", b.buf);
		else
			complain(&C, top, "no outputs(); the kernel has no pointer to non-const data to write");
		astra_buf_release(&b);
	}

	/* Scalars: a value from every shape, or from scalars(). */
	for (i = 0; i < p->scalars.nr; i++) {
		long k = param(&C, p->scalars.items[i].name);
		if (k < 0 || param_is_ptr[k])
			complain(&C, p->scalars.items[i].pos, "'%s' in scalars() is not a scalar parameter of the kernel",
				 p->scalars.items[i].name);
	}
	for (i = 0; i < p->nr_shapes; i++)
		for (j = 0; j < p->shapes[i].nr; j++) {
			long k = param(&C, p->shapes[i].items[j].name);
			if (k >= 0 && param_is_ptr[k])
				complain(&C, p->shapes[i].items[j].pos,
					 "'%s' is a pointer parameter; its size goes in buffers(%s[count])",
					 p->shapes[i].items[j].name, p->shapes[i].items[j].name);
		}
	for (i = 0; i < nr_params; i++) {
		const char *nm = param_names[i];
		if (param_is_ptr[i] || !nm || !nm[0] || astra_assign_get(&p->scalars, nm) || by_capture)
			continue;
		if (!p->nr_shapes) {
			complain(&C, top, "scalar parameter '%s' has no value; expected shapes(%s=...) or scalars(%s=...)",
				 nm, nm, nm);
			continue;
		}
		for (j = 0; j < p->nr_shapes; j++)
			if (!astra_assign_get(&p->shapes[j], nm)) {
				complain(&C, p->shapes[j].pos, "shapes() gives no value for scalar parameter '%s'", nm);
				break;
			}
	}

	if ((!p->grid || !p->block) && !by_capture)
		complain(&C, p->grid || p->block ? p->launch_pos : top,
			 "no launch geometry; expected launch(grid=..., block=...)");

	/* Templates: every instantiation gives every template parameter. */
	if (!nr_tmpl && p->nr_types)
		complain(&C, p->types[0].pos, "types() is given, but the kernel is not a template");
	if (nr_tmpl && !p->nr_types && !by_capture) {
		struct astra_buf b = ASTRA_BUF_INIT;
		for (i = 0; i < nr_tmpl; i++)
			if (!tmpl_optional || !tmpl_optional[i])
				astra_buf_addf(&b, "%s%s=...", b.len ? ", " : "", tmpl_names[i]);
		if (b.len)
			complain(&C, top, "the kernel is a template; expected types(%s)", b.buf);
		astra_buf_release(&b);
	}
	for (i = 0; nr_tmpl && i < p->nr_types; i++) {
		for (j = 0; j < p->types[i].nr; j++)
			if (!in_list(tmpl_names, nr_tmpl, p->types[i].items[j].name))
				complain(&C, p->types[i].items[j].pos, "'%s' is not a template parameter of the kernel",
					 p->types[i].items[j].name);
		for (j = 0; j < nr_tmpl; j++)
			if ((!tmpl_optional || !tmpl_optional[j]) && !astra_assign_get(&p->types[i], tmpl_names[j]))
				complain(&C, p->types[i].pos, "types() gives no value for template parameter '%s'",
					 tmpl_names[j]);
	}

	for (i = 0; i < p->nr_ranges; i++)
		if (param(&C, p->ranges[i].name) < 0)
			complain(&C, p->ranges[i].pos, "range of '%s': not a parameter of the kernel", p->ranges[i].name);
	/* Outputs left to a capture are inferred later (agents/captured.c): until
	   then a tolerance may name any pointer to non-const data. */
	for (i = 0; i < p->nr_tolerances; i++) {
		const char *nm = p->tolerances[i].name;
		long k;
		if (!nm || astra_pragma_is_output(p, nm))
			continue;
		if (!by_capture || p->nr_outputs) {
			complain(&C, p->tolerances[i].pos, "tolerance of '%s': not one of the outputs", nm);
			continue;
		}
		k = param(&C, nm);
		if (k < 0 || param_is_ptr[k] != 1)
			complain(&C, p->tolerances[i].pos,
				 "tolerance of '%s': not a pointer to non-const data, so never an output", nm);
	}
	return C.bad ? -1 : 0;
}

int astra_pragma_by_capture(const struct astra_pragma *p)
{
	return !(p->flags & ASTRA_PRAGMA_OFF) && !p->nr_shapes && !p->nr_buffers && !p->grid && !p->block &&
	       !p->shmem;
}

/* ------------------------------------------------------------ canonical form */

/* The shortest decimal text that reads back as v. */
static void add_double(struct astra_buf *b, double v)
{
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%.15g", v);
	if (strtod(tmp, NULL) != v)
		snprintf(tmp, sizeof(tmp), "%.17g", v);
	astra_buf_adds(b, tmp);
}

static void add_set(struct astra_buf *b, const char *clause, const struct astra_assign_set *s)
{
	size_t i;
	astra_buf_addf(b, " %s(", clause);
	for (i = 0; i < s->nr; i++)
		astra_buf_addf(b, "%s%s=%s", i ? ", " : "", s->items[i].name, s->items[i].value);
	astra_buf_addch(b, ')');
}

char *astra_pragma_canonical(const struct astra_pragma *p)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i, j;
	if (p->flags & ASTRA_PRAGMA_OFF)
		astra_buf_adds(&b, " off");
	if (p->flags & ASTRA_PRAGMA_OPTIMIZE)
		astra_buf_adds(&b, " optimize");
	if (p->flags & ASTRA_PRAGMA_NOALIAS)
		astra_buf_adds(&b, " noalias");
	for (i = 0; i < p->nr_shapes; i++)
		add_set(&b, "shapes", &p->shapes[i]);
	if (p->nr_buffers) {
		astra_buf_adds(&b, " buffers(");
		for (i = 0; i < p->nr_buffers; i++)
			astra_buf_addf(&b, "%s%s[%s]", i ? ", " : "", p->buffers[i].name, p->buffers[i].count);
		astra_buf_addch(&b, ')');
	}
	if (p->nr_outputs) {
		astra_buf_adds(&b, " outputs(");
		for (i = 0; i < p->nr_outputs; i++)
			astra_buf_addf(&b, "%s%s", i ? ", " : "", p->outputs[i]);
		astra_buf_addch(&b, ')');
	}
	if (p->grid || p->block || p->shmem) {
		const char *sep = "";
		astra_buf_adds(&b, " launch(");
		if (p->grid)
			astra_buf_addf(&b, "grid=%s", p->grid), sep = ", ";
		if (p->block)
			astra_buf_addf(&b, "%sblock=%s", sep, p->block), sep = ", ";
		if (p->shmem)
			astra_buf_addf(&b, "%sshmem=%s", sep, p->shmem);
		astra_buf_addch(&b, ')');
	}
	for (i = 0; i < p->nr_types; i++)
		add_set(&b, "types", &p->types[i]);
	if (p->scalars.nr)
		add_set(&b, "scalars", &p->scalars);
	for (i = 0; i < p->nr_ranges; i++)
		astra_buf_addf(&b, " range(%s: %s .. %s)", p->ranges[i].name, p->ranges[i].lo, p->ranges[i].hi);
	for (i = 0; i < p->nr_tolerances; i++) {
		const struct astra_tolerance *t = &p->tolerances[i];
		astra_buf_adds(&b, " tolerance(");
		if (t->name)
			astra_buf_addf(&b, "%s: ", t->name);
		if (t->rtol >= 0) {
			astra_buf_adds(&b, "rtol=");
			add_double(&b, t->rtol);
		}
		if (t->atol >= 0) {
			astra_buf_adds(&b, t->rtol >= 0 ? ", atol=" : "atol=");
			add_double(&b, t->atol);
		}
		astra_buf_addch(&b, ')');
	}
	for (i = 0; i < p->nr_tunables; i++) {
		astra_buf_addf(&b, " tune(%s:", p->tunables[i].name);
		for (j = 0; j < p->tunables[i].nr; j++)
			astra_buf_addf(&b, "%s%s", j ? ", " : " ", p->tunables[i].values[j]);
		astra_buf_addch(&b, ')');
	}
	if (p->flops)
		astra_buf_addf(&b, " flops(%s)", p->flops);
	if (p->bytes)
		astra_buf_addf(&b, " bytes(%s)", p->bytes);
	if (!b.len)
		return xstrdup("");
	{
		char *s = xstrdup(b.buf + 1);
		astra_buf_release(&b);
		return s;
	}
}
