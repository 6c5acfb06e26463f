/*
 * parse.c - statements and expression trees of a kernel body (see
 * parse.h).  Precedence climbing for expressions; a declaration is told
 * from an expression by its first tokens (a type word, or a name followed
 * by a name).
 */
#include "autoconfig.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "front/lex.h"
#include "ir/parse.h"
#include "lib/util.h"

struct P {
	struct astra_ir_arena *ar;
	const char *text;
	struct astra_lexed lx;
	size_t i;                   /* current token */
	unsigned line0;
	const struct astra_kernel *k;
	struct astra_buf *why;
	jmp_buf fail;
};

static const char *const type_words[] = {
	"void", "bool", "char", "short", "int", "long", "float", "double", "unsigned", "signed", "size_t",
	"int64_t", "uint64_t", "int32_t", "uint32_t", "int16_t", "uint16_t", "int8_t", "uint8_t", "half",
	"__half", "__nv_bfloat16", "__half2", "__nv_bfloat162", "float2", "float4", "int2", "int4",
	"auto", "ptrdiff_t", "dim3", NULL,
};
static const char *const qualifiers[] = {
	"const", "volatile", "constexpr", "static", "register", "__shared__", "extern", "__restrict__",
	"__restrict", "typename", NULL,
};

static int in_list(const char *const *l, const char *s, size_t n)
{
	for (; *l; l++)
		if (strlen(*l) == n && !memcmp(*l, s, n))
			return 1;
	return 0;
}

ASTRA_NORETURN static void pdie(struct P *p, const char *fmt, ...) ASTRA_PRINTF(2, 3);
static void pdie(struct P *p, const char *fmt, ...)
{
	va_list ap;
	unsigned line = p->i < p->lx.nr ? p->lx.toks[p->i].line : (p->lx.nr ? p->lx.toks[p->lx.nr - 1].line : 1);
	astra_buf_reset(p->why);
	astra_buf_addf(p->why, "line %u: ", line + p->line0 - 1);
	va_start(ap, fmt);
	astra_buf_vaddf(p->why, fmt, ap);
	va_end(ap);
	longjmp(p->fail, 1);
}

static const struct astra_lex_tok *tok(struct P *p, size_t off)
{
	return p->i + off < p->lx.nr ? &p->lx.toks[p->i + off] : NULL;
}

static int is(struct P *p, size_t off, const char *s)
{
	const struct astra_lex_tok *t = tok(p, off);
	return t && astra_lex_is(p->text, t, s);
}

static int is_ident(struct P *p, size_t off)
{
	const struct astra_lex_tok *t = tok(p, off);
	return t && t->kind == ASTRA_LEX_IDENT;
}

static unsigned line_of(struct P *p)
{
	const struct astra_lex_tok *t = tok(p, 0);
	return (t ? t->line : 1) + p->line0 - 1;
}

static const char *tok_str(struct P *p, size_t off)
{
	const struct astra_lex_tok *t = tok(p, off);
	return t ? astra_ir_strdup(p->ar, p->text + t->off, t->len) : "";
}

static void expect(struct P *p, const char *s)
{
	if (!is(p, 0, s))
		pdie(p, "expected `%s` here, found `%s`", s, tok_str(p, 0));
	p->i++;
}

/* Is the identifier at off a type name (a type word, a template type parameter, an alias)? */
static int type_name(struct P *p, size_t off)
{
	const struct astra_lex_tok *t = tok(p, off);
	size_t j;
	if (!t || t->kind != ASTRA_LEX_IDENT)
		return 0;
	if (in_list(type_words, p->text + t->off, t->len))
		return 1;
	if (!p->k)
		return 0;
	for (j = 0; j < p->k->nr_tmpl; j++)
		if (p->k->tmpl_kinds && p->k->tmpl_kinds[j] &&
		    (!strcmp(p->k->tmpl_kinds[j], "typename") || !strcmp(p->k->tmpl_kinds[j], "class")) &&
		    strlen(p->k->tmpl_params[j]) == t->len && !memcmp(p->k->tmpl_params[j], p->text + t->off, t->len))
			return 1;
	return astra_env_alias(&p->k->env, p->text + t->off, t->len) != NULL;
}

static int qualifier(struct P *p, size_t off)
{
	const struct astra_lex_tok *t = tok(p, off);
	return t && t->kind == ASTRA_LEX_IDENT && in_list(qualifiers, p->text + t->off, t->len);
}

/* Skip a balanced <...> starting at token off; returns the offset after it, or 0. */
static size_t skip_angle(struct P *p, size_t off)
{
	int depth = 0;
	for (; tok(p, off); off++) {
		if (is(p, off, "<"))
			depth++;
		else if (is(p, off, ">"))
			depth--;
		else if (is(p, off, ">>"))
			depth -= 2;
		else if (is(p, off, ";") || is(p, off, "{"))
			return 0;
		if (depth <= 0)
			return off + 1;
	}
	return 0;
}

/* Does a declaration start here?  Sets *type_end to the first declarator token. */
static int decl_start(struct P *p)
{
	size_t o = 0, n;
	int typed = 0;
	while (qualifier(p, o))
		o++;
	if (!is_ident(p, o))
		return 0;
	if (type_name(p, o))
		typed = 1;
	o++;
	/* `int half = ...`: a type name followed by `=` is the declarator's name */
	while ((type_name(p, o) && !(is(p, o + 1, "=") || is(p, o + 1, ";") || is(p, o + 1, ",") || is(p, o + 1, "["))) ||
	       qualifier(p, o))
		o++;
	while (is(p, o, "::") && is_ident(p, o + 1))
		o += 2;
	if (is(p, o, "<") && (n = skip_angle(p, o)) != 0 && (typed || is_ident(p, n) || is(p, n, "*")))
		o = n;
	while (is(p, o, "*") || is(p, o, "&") || qualifier(p, o))
		o++;
	if (!is_ident(p, o))
		return 0;
	if (typed)
		return 1;
	return is(p, o + 1, "=") || is(p, o + 1, ";") || is(p, o + 1, "[") || is(p, o + 1, ",");
}

static struct astra_ir_node *expr(struct P *p, int minprec);
static struct astra_ir_stmt *stmt(struct P *p);

static struct astra_ir_node *mk(struct P *p, enum astra_ir_kind kind, const char *s, size_t nr, ...)
{
	struct astra_ir_node *n = astra_ir_node(p->ar, kind, s, 0);
	va_list ap;
	size_t j;
	n->a = astra_ir_alloc(p->ar, (nr ? nr : 1) * sizeof(*n->a));
	n->nr = nr;
	va_start(ap, nr);
	for (j = 0; j < nr; j++)
		n->a[j] = va_arg(ap, struct astra_ir_node *);
	va_end(ap);
	n->line = line_of(p);
	return n;
}

static void add_arg(struct P *p, struct astra_ir_node *n, struct astra_ir_node *x)
{
	struct astra_ir_node **a = astra_ir_alloc(p->ar, (n->nr + 1) * sizeof(*a));
	if (n->nr)
		memcpy(a, n->a, n->nr * sizeof(*a));
	a[n->nr++] = x;
	n->a = a;
}

/* The type text of a cast or declaration from token off to end (exclusive). */
static const char *span(struct P *p, size_t from, size_t to)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *s;
	size_t j;
	for (j = from; j < to && j < p->lx.nr; j++) {
		if (b.len)
			astra_buf_addch(&b, ' ');
		astra_buf_add(&b, p->text + p->lx.toks[j].off, p->lx.toks[j].len);
	}
	s = astra_ir_strdup(p->ar, b.buf ? b.buf : "", b.len);
	astra_buf_release(&b);
	return s;
}

static int callable(struct P *p, size_t off)
{
	const struct astra_lex_tok *t = tok(p, off);
	if (!t || t->kind != ASTRA_LEX_IDENT)
		return 0;
	return p->k && astra_env_func(&p->k->env, p->text + t->off, t->len);
}

static struct astra_ir_node *primary(struct P *p)
{
	const struct astra_lex_tok *t = tok(p, 0);
	struct astra_ir_node *n;
	if (!t)
		pdie(p, "the text ends inside an expression");
	if (is(p, 0, "(")) {
		p->i++;
		n = expr(p, 0);
		expect(p, ")");
		return n;
	}
	if (t->kind == ASTRA_LEX_NUMBER) {
		p->i++;
		return mk(p, IR_NUM, astra_ir_strdup(p->ar, p->text + t->off, t->len), 0);
	}
	if (t->kind != ASTRA_LEX_IDENT)
		pdie(p, "`%s` where a value was expected", tok_str(p, 0));
	if (is(p, 0, "static_cast") || is(p, 0, "reinterpret_cast") || is(p, 0, "const_cast")) {
		size_t e = skip_angle(p, 1);
		const char *ty;
		if (!e)
			pdie(p, "a cast without its type");
		ty = span(p, p->i + 2, p->i + e - 1);
		p->i += e;
		expect(p, "(");
		n = expr(p, 0);
		expect(p, ")");
		return mk(p, IR_CAST, ty, 1, n);
	}
	if (is(p, 0, "sizeof"))
		pdie(p, "sizeof is not modelled");
	n = mk(p, IR_NAME, tok_str(p, 0), 0);
	p->i++;
	while (is(p, 0, "::") && is_ident(p, 1)) {
		char *q = xasprintf("%s::%s", n->s, tok_str(p, 1));
		n->s = astra_ir_strdup(p->ar, q, strlen(q));
		free(q);
		p->i += 2;
	}
	if (is(p, 0, "<")) {
		/* f<N>(x) of a function the kernel sees; X<T>() of anything: `a < b > ()` is no expression */
		size_t e = skip_angle(p, 0);
		if (e && is(p, e, "(") && (callable(p, -1) || is(p, e + 1, ")")))
			p->i += e;
	}
	return n;
}

static struct astra_ir_node *postfix(struct P *p, struct astra_ir_node *n)
{
	for (;;) {
		if (is(p, 0, "[")) {
			struct astra_ir_node *ix;
			p->i++;
			ix = expr(p, 0);
			expect(p, "]");
			n = mk(p, IR_INDEX, NULL, 2, n, ix);
		} else if (is(p, 0, "(")) {
			struct astra_ir_node *c;
			if (n->kind == IR_MEMBER) {
				/* obj.f(x): the call ".f" of obj and x (cg's cta.sync(), cta.thread_rank()) */
				char *q = xasprintf(".%s", n->s);
				c = mk(p, IR_CALL, astra_ir_strdup(p->ar, q, strlen(q)), 1, n->a[0]);
				free(q);
			} else if (n->kind != IR_NAME) {
				pdie(p, "a call through an expression");
			} else {
				c = mk(p, IR_CALL, n->s, 0);
			}
			p->i++;
			while (!is(p, 0, ")")) {
				add_arg(p, c, expr(p, 2));
				if (!is(p, 0, ","))
					break;
				p->i++;
			}
			expect(p, ")");
			n = c;
		} else if ((is(p, 0, ".") || is(p, 0, "->")) && is_ident(p, 1)) {
			n = mk(p, IR_MEMBER, tok_str(p, 1), 1, n);
			p->i += 2;
		} else if (is(p, 0, "++") || is(p, 0, "--")) {
			n = mk(p, IR_INCDEC, tok_str(p, 0), 1, n);
			p->i++;
		} else {
			return n;
		}
	}
}

/*
 * Is "(" at the current token a cast?  Returns the offset of its ")".
 * `(NAME) x` and `(NAME) 1.5` are casts whatever NAME is (a parenthesized
 * name followed by an operand is no expression): a type macro of a header
 * (`(DATA_TYPE)FLOAT_N`), which the front end does not read.
 */
static size_t cast_end(struct P *p)
{
	size_t o = 1;
	int typed = 0;
	const struct astra_lex_tok *t;
	while (qualifier(p, o) || type_name(p, o)) {
		typed |= type_name(p, o);
		o++;
	}
	while (is(p, o, "*") || qualifier(p, o))
		o++;
	if (!typed && o == 1 && is_ident(p, 1) && is(p, 2, ")") && (t = tok(p, 3)) != NULL &&
	    (t->kind == ASTRA_LEX_NUMBER || (t->kind == ASTRA_LEX_IDENT && !qualifier(p, 3))))
		return 2;
	return typed && is(p, o, ")") ? o : 0;
}

static struct astra_ir_node *unary(struct P *p)
{
	size_t e;
	if (is(p, 0, "-") || is(p, 0, "+") || is(p, 0, "!") || is(p, 0, "~") || is(p, 0, "*") || is(p, 0, "&")) {
		const char *op = tok_str(p, 0);
		p->i++;
		return mk(p, IR_UN, op, 1, unary(p));
	}
	if (is(p, 0, "++") || is(p, 0, "--")) {
		const char *op = tok_str(p, 0);
		p->i++;
		return mk(p, IR_INCDEC, op, 1, unary(p));
	}
	if (is(p, 0, "(") && (e = cast_end(p)) != 0) {
		const char *ty = span(p, p->i + 1, p->i + e);
		p->i += e + 1;
		return mk(p, IR_CAST, ty, 1, unary(p));
	}
	return postfix(p, primary(p));
}

static int binprec(struct P *p, const char **op)
{
	static const struct { const char *op; int prec; } t[] = {
		{"||", 3}, {"&&", 4}, {"|", 5}, {"^", 6}, {"&", 7}, {"==", 8}, {"!=", 8}, {"<", 9}, {">", 9},
		{"<=", 9}, {">=", 9}, {"<<", 10}, {">>", 10}, {"+", 11}, {"-", 11}, {"*", 12}, {"/", 12}, {"%", 12},
	};
	size_t j;
	for (j = 0; j < sizeof(t) / sizeof(t[0]); j++)
		if (is(p, 0, t[j].op)) {
			*op = t[j].op;
			return t[j].prec;
		}
	return -1;
}

static int assign_op(struct P *p)
{
	static const char *const ops[] = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", NULL};
	const struct astra_lex_tok *t = tok(p, 0);
	return t && t->kind == ASTRA_LEX_PUNCT && in_list(ops, p->text + t->off, t->len);
}

/* minprec 0: assignments and the comma-free rest; 2: no assignment at the top. */
static struct astra_ir_node *expr(struct P *p, int minprec)
{
	struct astra_ir_node *l = unary(p);
	const char *op;
	int prec;
	for (;;) {
		if (is(p, 0, "?") && minprec <= 2) {
			struct astra_ir_node *a, *b;
			p->i++;
			a = expr(p, 0);
			expect(p, ":");
			b = expr(p, 2);
			l = mk(p, IR_COND, NULL, 3, l, a, b);
			continue;
		}
		if (assign_op(p) && minprec <= 1) {
			op = tok_str(p, 0);
			p->i++;
			return mk(p, IR_ASSIGN, op, 2, l, expr(p, 1));
		}
		prec = binprec(p, &op);
		if (prec < 0 || prec < minprec)
			break;
		p->i++;
		l = mk(p, IR_BIN, op, 2, l, expr(p, prec + 1));
	}
	return l;
}

static struct astra_ir_stmt *new_stmt(struct P *p, enum astra_ir_stmt_kind kind)
{
	struct astra_ir_stmt *s = astra_ir_alloc(p->ar, sizeof(*s));
	const struct astra_lex_tok *t = tok(p, 0);
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->line = line_of(p);
	if (t) {
		const char *b = p->text + t->off, *e = strchr(b, '\n');
		size_t n = e ? (size_t)(e - b) : strlen(b);
		while (n && (b[n - 1] == ' ' || b[n - 1] == '\t' || b[n - 1] == '\r'))
			n--;
		s->text = astra_ir_strdup(p->ar, b, n > 72 ? 72 : n);
	}
	return s;
}

static void add_kid(struct P *p, struct astra_ir_stmt *b, struct astra_ir_stmt *s)
{
	struct astra_ir_stmt **k = astra_ir_alloc(p->ar, (b->nr_kids + 1) * sizeof(*k));
	if (b->nr_kids)
		memcpy(k, b->kids, b->nr_kids * sizeof(*k));
	k[b->nr_kids++] = s;
	b->kids = k;
}

/* A declaration, possibly of several names: one ST_DECL, or a block of them. */
static struct astra_ir_stmt *decl(struct P *p, int need_semi)
{
	struct astra_ir_stmt *blk = new_stmt(p, ST_BLOCK);
	size_t start = p->i, o;
	int shared = 0, typed_any = 0;
	const char *type;
	while (qualifier(p, 0) || type_name(p, 0)) {
		int typed = type_name(p, 0);
		if (typed && p->i > start && (is(p, 1, "=") || is(p, 1, ";") || is(p, 1, ",") || is(p, 1, "[")) &&
		    !qualifier(p, (size_t)-1))
			break;
		typed_any |= typed;
		shared |= is(p, 0, "__shared__");
		p->i++;
	}
	if (p->i == start || !typed_any)    /* a type that is only a name: `uint x`, `__shared__ uint s[N]` */
		p->i++;
	while (is(p, 0, "::") && is_ident(p, 1))
		p->i += 2;
	if (is(p, 0, "<") && (o = skip_angle(p, 0)) != 0)
		p->i += o;
	type = span(p, start, p->i);
	for (;;) {
		struct astra_ir_stmt *d = new_stmt(p, ST_DECL);
		d->type = type;
		d->is_shared = shared;
		while (is(p, 0, "*") || is(p, 0, "&") || qualifier(p, 0)) {
			d->is_pointer |= is(p, 0, "*");
			p->i++;
		}
		if (!is_ident(p, 0))
			pdie(p, "a declaration without a name");
		d->name = tok_str(p, 0);
		p->i++;
		while (is(p, 0, "[")) {
			d->is_array = 1;
			while (tok(p, 0) && !is(p, 0, "]"))
				p->i++;
			expect(p, "]");
		}
		if (is(p, 0, "=")) {
			p->i++;
			if (is(p, 0, "{"))
				pdie(p, "a brace initializer is not modelled");
			d->init = expr(p, 2);
		}
		add_kid(p, blk, d);
		if (!is(p, 0, ","))
			break;
		p->i++;
	}
	if (need_semi)
		expect(p, ";");
	return blk->nr_kids == 1 ? blk->kids[0] : blk;
}

static struct astra_ir_stmt *block(struct P *p)
{
	struct astra_ir_stmt *b = new_stmt(p, ST_BLOCK);
	expect(p, "{");
	while (tok(p, 0) && !is(p, 0, "}"))
		add_kid(p, b, stmt(p));
	expect(p, "}");
	return b;
}

static struct astra_ir_stmt *stmt(struct P *p)
{
	struct astra_ir_stmt *s;
	const struct astra_lex_tok *t = tok(p, 0);
	if (!t)
		pdie(p, "the text ends inside a statement");
	if (t->kind == ASTRA_LEX_PP) {
		p->i++;
		return new_stmt(p, ST_EMPTY);
	}
	if (is(p, 0, "{"))
		return block(p);
	if (is(p, 0, ";")) {
		s = new_stmt(p, ST_EMPTY);
		p->i++;
		return s;
	}
	if (is(p, 0, "if")) {
		s = new_stmt(p, ST_IF);
		p->i++;
		if (is(p, 0, "constexpr"))
			pdie(p, "if constexpr is not modelled");
		expect(p, "(");
		s->e = expr(p, 0);
		expect(p, ")");
		s->body = stmt(p);
		if (is(p, 0, "else")) {
			p->i++;
			s->els = stmt(p);
		}
		return s;
	}
	if (is(p, 0, "for")) {
		s = new_stmt(p, ST_FOR);
		p->i++;
		expect(p, "(");
		if (!is(p, 0, ";")) {
			if (decl_start(p)) {
				s->first = decl(p, 0);
			} else {
				s->first = new_stmt(p, ST_EXPR);
				s->first->e = expr(p, 0);
			}
		}
		expect(p, ";");
		if (!is(p, 0, ";"))
			s->e = expr(p, 0);
		expect(p, ";");
		if (!is(p, 0, ")"))
			s->step = expr(p, 0);
		while (is(p, 0, ",")) {    /* `a += x, b += y`: the comma operator, a node "," */
			p->i++;
			s->step = mk(p, IR_BIN, ",", 2, s->step, expr(p, 0));
		}
		expect(p, ")");
		s->body = stmt(p);
		return s;
	}
	if (is(p, 0, "while")) {
		s = new_stmt(p, ST_WHILE);
		p->i++;
		expect(p, "(");
		s->e = expr(p, 0);
		expect(p, ")");
		s->body = stmt(p);
		return s;
	}
	if (is(p, 0, "do") || is(p, 0, "switch") || is(p, 0, "goto") || is(p, 0, "asm") || is(p, 0, "case"))
		pdie(p, "`%s` is not modelled", tok_str(p, 0));
	if (is(p, 0, "return")) {
		s = new_stmt(p, ST_RETURN);
		p->i++;
		if (!is(p, 0, ";"))
			s->init = expr(p, 0);
		expect(p, ";");
		return s;
	}
	if (is(p, 0, "break") || is(p, 0, "continue")) {
		s = new_stmt(p, is(p, 0, "break") ? ST_BREAK : ST_CONTINUE);
		p->i++;
		expect(p, ";");
		return s;
	}
	if (decl_start(p))
		return decl(p, 1);
	s = new_stmt(p, ST_EXPR);
	s->e = expr(p, 0);
	expect(p, ";");
	return s;
}

struct astra_ir_stmt *astra_ir_parse(struct astra_ir_arena *ar, const char *text, size_t len, unsigned line0,
				     const struct astra_kernel *k, struct astra_buf *why)
{
	struct P p;
	struct astra_ir_stmt *volatile body = NULL;
	memset(&p, 0, sizeof(p));
	p.ar = ar;
	p.text = text;
	p.line0 = line0;
	p.k = k;
	p.why = why;
	if (astra_lex(text, len, ASTRA_LEX_LENIENT, &p.lx) < 0) {
		astra_buf_addf(why, "line %u: %s", p.lx.error_line + line0 - 1, p.lx.error);
		astra_lexed_release(&p.lx);
		return NULL;
	}
	while (p.i < p.lx.nr && !is(&p, 0, "{"))
		p.i++;
	if (!setjmp(p.fail))
		body = block(&p);
	astra_lexed_release(&p.lx);
	return body;
}
