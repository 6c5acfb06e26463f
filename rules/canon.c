/*
 * canon.c - the same kernel in the rules' wording (see canon.h).
 *
 * Passes over the working copy, each re-reading the text the previous one
 * left: macros and constants, __device__ functions, the index, the bounds
 * check, while loops, strides, maxima.  Every pass checks what it needs
 * to prove the rewrite keeps the meaning, and otherwise leaves the code
 * as it is; the rules then decline as they would have.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "front/expand.h"
#include "front/lex.h"
#include "front/types.h"
#include "rules/canon.h"
#include "rules/facts.h"

#define NONE ((size_t)-1)

struct cn {
	struct astra_rk *rk;
	struct astra_buf *notes;
	int count;
	unsigned done;          /* bits of the kinds of rewrites made, for notes */
	int serial;             /* for fresh names */
};

enum {
	DID_MACRO = 1 << 0, DID_CONST = 1 << 1, DID_INLINE = 1 << 2, DID_INDEX = 1 << 3, DID_GUARD = 1 << 4,
	DID_WHILE = 1 << 5, DID_STRIDE = 1 << 6, DID_MINMAX = 1 << 7, DID_ELSE = 1 << 8,
	DID_STAGE = 1 << 9, DID_BLOCK2D = 1 << 10,
};

/* ------------------------------------------------------------ utilities */

/* Is token t a member name (after `.`, `->` or `::`)? */
static int is_member(const struct astra_syn *syn, size_t t)
{
	return t > 0 && (astra_syn_is(syn, t - 1, ".") || astra_syn_is(syn, t - 1, "->") || astra_syn_is(syn, t - 1, "::"));
}

/* The bytes of the kernel's body `{ ... }` in text, found by the kernel's name; -1 when not found. */
static int body_bytes(const char *text, const char *name, size_t *from, size_t *to)
{
	struct astra_lexed lx;
	size_t i, n = strlen(name);
	int r = -1;
	if (astra_lex(text, strlen(text), ASTRA_LEX_LENIENT, &lx) < 0)
		goto out;
	for (i = 0; i + 1 < lx.nr; i++) {
		int depth = 0;
		size_t j;
		if (lx.toks[i].kind != ASTRA_LEX_IDENT || lx.toks[i].len != n || memcmp(text + lx.toks[i].off, name, n) ||
		    !astra_lex_is(text, &lx.toks[i + 1], "("))
			continue;
		for (j = i + 1; j < lx.nr; j++) {
			if (astra_lex_is(text, &lx.toks[j], "("))
				depth++;
			else if (astra_lex_is(text, &lx.toks[j], ")") && --depth == 0)
				break;
		}
		for (; j < lx.nr && !astra_lex_is(text, &lx.toks[j], "{"); j++)
			if (astra_lex_is(text, &lx.toks[j], ";"))
				break;
		if (j >= lx.nr || !astra_lex_is(text, &lx.toks[j], "{"))
			continue;
		*from = lx.toks[j].off;
		for (depth = 0; j < lx.nr; j++) {
			if (astra_lex_is(text, &lx.toks[j], "{"))
				depth++;
			else if (astra_lex_is(text, &lx.toks[j], "}") && --depth == 0)
				break;
		}
		if (j < lx.nr) {
			*to = lx.toks[j].off + 1;
			r = 0;
		}
		break;
	}
out:
	astra_lexed_release(&lx);
	return r;
}

/* text with each identifier names[i] (not a member) replaced by values[i]; malloc'd. */
static char *subst_names(const char *text, char **names, char **values, size_t n)
{
	struct astra_lexed lx;
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i, k, prev = 0, len = strlen(text);
	astra_lex(text, len, ASTRA_LEX_LENIENT, &lx);
	for (i = 0; i < lx.nr; i++) {
		const struct astra_lex_tok *t = &lx.toks[i];
		if (t->kind != ASTRA_LEX_IDENT)
			continue;
		if (i > 0 && (astra_lex_is(text, &lx.toks[i - 1], ".") || astra_lex_is(text, &lx.toks[i - 1], "->") ||
			      astra_lex_is(text, &lx.toks[i - 1], "::")))
			continue;
		for (k = 0; k < n; k++)
			if (astra_lex_is(text, t, names[k]))
				break;
		if (k == n)
			continue;
		astra_buf_add(&b, text + prev, t->off - prev);
		astra_buf_adds(&b, values[k]);
		prev = t->off + t->len;
	}
	astra_buf_add(&b, text + prev, len - prev);
	astra_lexed_release(&lx);
	return astra_buf_detach(&b, NULL);
}

/* How often the identifier name occurs in text (not as a member). */
static int count_name(const char *text, const char *name)
{
	struct astra_lexed lx;
	size_t i;
	int c = 0;
	astra_lex(text, strlen(text), ASTRA_LEX_LENIENT, &lx);
	for (i = 0; i < lx.nr; i++)
		if (lx.toks[i].kind == ASTRA_LEX_IDENT && astra_lex_is(text, &lx.toks[i], name) &&
		    !(i > 0 && (astra_lex_is(text, &lx.toks[i - 1], ".") || astra_lex_is(text, &lx.toks[i - 1], "->"))))
			c++;
	astra_lexed_release(&lx);
	return c;
}

/* A fresh name with prefix pfx that text does not use. */
static char *fresh(struct cn *C, const char *pfx)
{
	for (;;) {
		char *n = xasprintf("%s%d", pfx, C->serial++);
		if (!count_name(C->rk->text, n))
			return n;
		free(n);
	}
}

/* The indentation of the line holding byte off of text. */
static char *indent_at(const char *text, size_t off)
{
	size_t ls = off, e;
	while (ls > 0 && text[ls - 1] != '\n')
		ls--;
	for (e = ls; text[e] == ' ' || text[e] == '\t'; e++)
		;
	return xstrndup(text + ls, e - ls);
}

/* text (several lines) re-indented: its lines' common indentation becomes ind. */
static void add_reindented(struct astra_buf *b, const char *text, const char *ind)
{
	size_t common = (size_t)-1;
	const char *p = text;
	for (;;) {
		size_t n = 0;
		while (p[n] == ' ' || p[n] == '\t')
			n++;
		if (p[n] && p[n] != '\n' && n < common)
			common = n;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	if (common == (size_t)-1)
		common = 0;
	p = text;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p), skip = 0;
		while (skip < common && skip < n && (p[skip] == ' ' || p[skip] == '\t'))
			skip++;
		if (n > skip) {
			astra_buf_adds(b, ind);
			astra_buf_add(b, p + skip, n - skip);
		}
		if (!e)
			break;
		astra_buf_addch(b, '\n');
		p = e + 1;
	}
}

static int apply_edits(struct cn *C, struct astra_syn_edits *e, unsigned did)
{
	int n = (int)e->nr;
	if (!n)
		return 0;
	if (astra_rk_edit(C->rk, e) < 0) {
		astra_syn_edits_release(e);
		return -1;
	}
	astra_syn_edits_release(e);
	C->count += n;
	C->done |= did;
	return n;
}

/* ------------------------------------------------------------ macros */

static int skip_macro(const char *name, size_t len, void *data)
{
	const struct astra_rk *rk = data;
	size_t i;
	for (i = 0; i < rk->k->pragma.nr_tunables; i++)
		if (strlen(rk->k->pragma.tunables[i].name) == len && !memcmp(rk->k->pragma.tunables[i].name, name, len))
			return 1;
	/* a macro that names a type stays: the rules resolve it */
	return astra_env_alias(&rk->k->env, name, len) != NULL;
}

static int pass_macros(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t from, to;
	int n;
	if (!rk->k->env.nr_macros || body_bytes(rk->text, rk->k->name, &from, &to) < 0)
		return 0;
	astra_buf_add(&b, rk->text, from);
	n = astra_expand_macros(&rk->k->env, rk->text, from, to, skip_macro, rk, &b);
	if (n <= 0) {
		astra_buf_release(&b);
		return 0;
	}
	astra_buf_adds(&b, rk->text + to);
	astra_rk_set_text(rk, astra_buf_detach(&b, NULL));
	C->count += n;
	C->done |= DID_MACRO;
	return n;
}

/* ------------------------------------------------------------ constants */

static int pass_consts(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_syn_edits e = { NULL, 0, 0 };
	size_t t;
	if (!rk->k->env.nr_consts || astra_facts_build(&f, rk) < 0)
		return 0;
	syn = &rk->syn;
	for (t = syn->body->t0; t < syn->body->t1; t++) {
		const struct astra_const *k;
		if (syn->toks[t].kind != SYN_IDENT || is_member(syn, t))
			continue;
		k = astra_env_const(&rk->k->env, syn->text + syn->toks[t].off, syn->toks[t].len);
		if (!k || astra_facts_local(&f, k->name, strlen(k->name)) || astra_rk_param(rk, k->name, strlen(k->name)))
			continue;
		{
			struct astra_lexed lx;
			int single = astra_lex(k->init, strlen(k->init), ASTRA_LEX_LENIENT, &lx) == 0 && lx.nr == 1;
			astra_lexed_release(&lx);
			astra_syn_edit_owned(&e, syn->toks[t].off, syn->toks[t].off + syn->toks[t].len,
					      single ? xstrdup(k->init) : xasprintf("(%s)", k->init));
		}
	}
	astra_facts_release(&f);
	return apply_edits(C, &e, DID_CONST);
}

/* ------------------------------------------------------------ inlining */

/* Calls an inlined argument may not make (they have effects, or order matters). */
static int impure_call(const char *name, size_t n)
{
	static const char *const pfx[] = { "atomic", "__sync", "__shfl", "printf", "malloc", "free", "__threadfence",
					    "asm", "__trap", "assert", NULL };
	const char *const *p;
	for (p = pfx; *p; p++)
		if (n >= strlen(*p) && !memcmp(name, *p, strlen(*p)))
			return 1;
	return 0;
}

/* Is [t0, t1) free of assignments, increments and impure calls? */
static int pure_tokens(const struct astra_syn *syn, size_t t0, size_t t1)
{
	static const char *const ops[] = { "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "++", "--", NULL };
	size_t t;
	for (t = t0; t < t1; t++) {
		const char *const *o;
		for (o = ops; *o; o++)
			if (astra_syn_is(syn, t, *o))
				return 0;
		if (syn->toks[t].kind == SYN_IDENT && astra_syn_is(syn, t + 1, "(") &&
		    impure_call(syn->text + syn->toks[t].off, syn->toks[t].len))
			return 0;
	}
	return 1;
}

/* A simple argument: a name, a literal, or a member of one (threadIdx.x). */
static int simple_arg(const struct astra_syn *syn, size_t t0, size_t t1)
{
	if (t1 == t0 + 1)
		return syn->toks[t0].kind == SYN_IDENT || syn->toks[t0].kind == SYN_NUMBER;
	return t1 == t0 + 3 && syn->toks[t0].kind == SYN_IDENT && astra_syn_is(syn, t0 + 1, ".") &&
	       syn->toks[t0 + 2].kind == SYN_IDENT;
}

/* A helper's body, read with the rules' parser. */
struct helper {
	const struct astra_func *fn;
	char *text;                 /* "__global__ void NAME(PARAMS) BODY" */
	struct astra_syn syn;
	struct astra_stmt *ret;     /* the one return (the body's last statement), or NULL for void */
	int expr_form;              /* [const T x = e;]* return E; */
	struct astra_vec locals;    /* names the body declares */
};

static void helper_release(struct helper *h)
{
	astra_syn_release(&h->syn);
	free(h->text);
	astra_vec_clear(&h->locals);
}

static int find_returns(struct astra_stmt *s, void *data)
{
	struct astra_stmt **r = data;
	if (s->kind == STMT_RETURN) {
		if (*r)
			return 1;
		*r = s;
	}
	if (s->kind == STMT_GOTO || s->kind == STMT_LABEL || s->kind == STMT_OTHER)
		return 1;
	return 0;
}

static int collect_locals(struct astra_stmt *s, void *data)
{
	struct helper *h = data;
	if (s->kind == STMT_DECL || (s->kind == STMT_FOR && astra_syn_looks_like_decl(&h->syn, s->a0, s->a1))) {
		struct astra_decl *d = NULL;
		size_t n = astra_syn_decls(&h->syn, s->a0, s->a1, &d), i;
		for (i = 0; i < n; i++)
			astra_vec_push_owned(&h->locals, astra_syn_tokstr(&h->syn, d[i].name));
		free(d);
	}
	return 0;
}

/* Read fn's body; 0, or -1 when the rules cannot inline it. */
static int helper_read(struct cn *C, const struct astra_func *fn, struct helper *h)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_stmt *body, *ret = NULL;
	size_t i;
	memset(h, 0, sizeof(*h));
	h->fn = fn;
	astra_vec_init(&h->locals);
	if (fn->is_template || fn->overloaded || !fn->is_device || !fn->body)
		return -1;
	astra_buf_addf(&b, "__global__ void %s(", fn->name);
	for (i = 0; i < fn->nr_params; i++)
		astra_buf_addf(&b, "%s%s %s", i ? ", " : "", fn->params[i].type, fn->params[i].name);
	astra_buf_addf(&b, ")\n%s", fn->body);
	h->text = astra_buf_detach(&b, NULL);
	if (astra_syn_lex(&h->syn, h->text, strlen(h->text)) < 0)
		return -1;
	for (i = 0; i < C->rk->k->env.nr_aliases; i++)
		astra_syn_add_type(&h->syn, C->rk->k->env.aliases[i].name);
	if (astra_syn_parse_kernel(&h->syn) < 0)
		return -1;
	body = h->syn.body;
	/* one return, the last statement (none for void); no static state, no recursion */
	if (astra_syn_walk(body, find_returns, &ret))
		return -1;
	for (i = body->t0; i < body->t1; i++)
		if (astra_syn_is(&h->syn, i, "static") || astra_syn_is(&h->syn, i, "asm") ||
		    (astra_syn_is(&h->syn, i, fn->name) && astra_syn_is(&h->syn, i + 1, "(")))
			return -1;
	if (ret && (!body->nr_kids || body->kids[body->nr_kids - 1] != ret))
		return -1;
	if (!strcmp(fn->ret, "void") ? (ret && ret->a1 > ret->a0 + 1) : (!ret || ret->a1 <= ret->a0 + 1))
		return -1;
	h->ret = ret;
	astra_syn_walk(body, collect_locals, h);
	/* the expression form: const locals with pure initializers, then the return */
	h->expr_form = ret != NULL;
	for (i = 0; ret && i + 1 < body->nr_kids; i++) {
		struct astra_stmt *s = body->kids[i];
		struct astra_decl *d = NULL;
		size_t nd;
		if (s->kind != STMT_DECL || (nd = astra_syn_decls(&h->syn, s->a0, s->a1, &d)) != 1 ||
		    d[0].init1 <= d[0].init0 || d[0].is_array || d[0].ptr1 > d[0].ptr0 ||
		    astra_syn_find(&h->syn, d[0].ty0, d[0].ty1, "const") == NONE ||
		    astra_syn_find(&h->syn, d[0].ty0, d[0].ty1, "__shared__") != NONE ||
		    !pure_tokens(&h->syn, d[0].init0, d[0].init1))
			h->expr_form = 0;
		free(d);
	}
	if (ret && !pure_tokens(&h->syn, ret->a0 + 1, ret->a1))
		h->expr_form = 0;
	return 0;
}

static int is_local_name(const struct helper *h, const char *name, size_t n)
{
	size_t i;
	for (i = 0; i < h->locals.nr; i++)
		if (strlen(h->locals.v[i]) == n && !memcmp(h->locals.v[i], name, n))
			return 1;
	return 0;
}

/*
 * Names the helper's body uses that are neither its parameters nor its
 * locals: the file's globals (or builtins).  A kernel local or parameter
 * of the same name would capture them when the body moves into the kernel.
 */
static int captured(struct cn *C, struct astra_facts *f, const struct helper *h)
{
	const struct astra_syn *syn = &h->syn;
	size_t t, p;
	for (t = syn->body->t0; t < syn->body->t1; t++) {
		const char *s = syn->text + syn->toks[t].off;
		size_t n = syn->toks[t].len;
		int param = 0;
		if (syn->toks[t].kind != SYN_IDENT || is_member(syn, t) || is_local_name(h, s, n))
			continue;
		for (p = 0; p < h->fn->nr_params; p++)
			param |= strlen(h->fn->params[p].name) == n && !memcmp(h->fn->params[p].name, s, n);
		if (param)
			continue;
		if (astra_facts_local(f, s, n) || astra_rk_param(C->rk, s, n))
			return 1;
	}
	return 0;
}

/* The argument's value as the parameter receives it: converted to its type unless it is a pointer or reference. */
static char *bind_arg(struct astra_facts *f, const struct astra_param *p, struct astra_expr *arg, int simple)
{
	const struct astra_syn *syn = f->syn;
	char *a = astra_syn_text(syn, arg->t0, arg->t1);
	char *bare = astra_rk_resolve_type(f->rk, p->type), *r;
	if (strchr(p->type, '*') || strchr(p->type, '&') || strchr(p->type, '[') ||
	    (!strcmp(bare, "float") && astra_facts_type(f, arg) == TY_FLOAT))
		r = simple ? a : xasprintf("(%s)", a);
	else
		r = xasprintf("((%s)%s%s%s)", p->type, simple ? "" : "(", a, simple ? "" : ")");
	if (r != a)
		free(a);
	free(bare);
	return r;
}

/* The return statement's expression with the expression form's locals and the parameters replaced. */
static char *expr_body(const struct helper *h, char **pnames, char **pvals, size_t np)
{
	const struct astra_syn *syn = &h->syn;
	struct astra_stmt *body = syn->body;
	char *e = astra_syn_text(syn, h->ret->a0 + 1, h->ret->a1), *t;
	size_t i;
	/* the locals, last first, each replaced by its (parenthesized) initializer */
	for (i = body->nr_kids - 1; i-- > 0;) {
		struct astra_decl *d = NULL;
		char *name, *init, *val;
		astra_syn_decls(syn, body->kids[i]->a0, body->kids[i]->a1, &d);
		name = astra_syn_tokstr(syn, d[0].name);
		init = astra_syn_text(syn, d[0].init0, d[0].init1);
		val = xasprintf("(%s)", init);
		t = subst_names(e, &name, &val, 1);
		free(e);
		e = t;
		free(name);
		free(init);
		free(val);
		free(d);
	}
	t = subst_names(e, pnames, pvals, np);
	free(e);
	return t;
}

/* Is e under the second or third operand of ?:, or the right of && / || (below stop)? */
static int conditional(const struct astra_syn *syn, const struct astra_expr *e)
{
	const struct astra_expr *p;
	for (p = e->parent; p; e = p, p = p->parent) {
		if (p->kind == EX_COND && e != p->a)
			return 1;
		if (p->kind == EX_BINARY && e == p->b && (astra_syn_is(syn, p->op, "&&") || astra_syn_is(syn, p->op, "||")))
			return 1;
	}
	return 0;
}

struct calls {
	struct cn *C;
	struct astra_facts *f;
	struct astra_expr *found;
	struct astra_stmt *stmt;
};

static int find_call(struct astra_expr *e, void *data)
{
	struct calls *c = data;
	const struct astra_syn *syn = c->f->syn;
	const struct astra_func *fn;
	if (e->kind != EX_CALL || e->a->kind != EX_IDENT || e->a->t1 != e->a->t0 + 1)
		return 0;
	fn = astra_env_func(&c->C->rk->k->env, syn->text + syn->toks[e->a->t0].off, syn->toks[e->a->t0].len);
	if (!fn || astra_facts_local(c->f, fn->name, strlen(fn->name)) || fn->nr_params != e->nr_args)
		return 0;
	c->found = e;
	return 1;
}

static int find_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e,
		     void *data)
{
	struct calls *c = data;
	(void)t0;
	(void)t1;
	if (!e)
		return 0;
	if (astra_expr_walk(e, find_call, c)) {
		c->stmt = s;
		return 1;
	}
	(void)f;
	return 0;
}

/* The statement that holds a call, if it is one a block can be put in front of. */
static int stmt_form_site(const struct astra_syn *syn, struct astra_stmt *s, struct astra_expr *call)
{
	struct astra_decl *d = NULL;
	size_t nd;
	/* in a block, or the body of a loop or an if (then wrapped in braces) */
	if (!s->parent || conditional(syn, call) ||
	    !(s->parent->kind == STMT_BLOCK || s->parent->kind == STMT_FOR || s->parent->kind == STMT_WHILE ||
	      s->parent->kind == STMT_DO || s->parent->kind == STMT_IF))
		return 0;
	if (s->kind == STMT_EXPR)
		return 1;
	if (s->kind != STMT_DECL)
		return 0;
	nd = astra_syn_decls(syn, s->a0, s->a1, &d);
	free(d);
	return nd == 1;
}

/* Inline one call (the first found in a statement); 1 done, 0 none possible, -1 failure. */
static int inline_one(struct cn *C, struct astra_facts *f, struct astra_stmt *s, struct astra_expr *call)
{
	const struct astra_syn *syn = f->syn;
	const struct astra_func *fn = astra_env_func(&C->rk->k->env, syn->text + syn->toks[call->a->t0].off,
						     syn->toks[call->a->t0].len);
	struct helper h;
	struct astra_syn_edits e = { NULL, 0, 0 };
	char **pnames = NULL, **pvals = NULL;
	size_t i, np = fn ? fn->nr_params : 0;
	int expr_ok, r = 0;

	if (!fn || helper_read(C, fn, &h) < 0) {
		if (fn)
			helper_release(&h);
		return 0;
	}
	if (captured(C, f, &h)) {
		helper_release(&h);
		return 0;
	}
	pnames = xcalloc(np + 1, sizeof(char *));
	pvals = xcalloc(np + 1, sizeof(char *));
	/* the expression form: every argument used at most once, or simple */
	expr_ok = h.expr_form;
	for (i = 0; i < np; i++) {
		struct astra_expr *a = call->args[i];
		int simple = simple_arg(syn, a->t0, a->t1);
		pnames[i] = xstrdup(fn->params[i].name);
		pvals[i] = bind_arg(f, &fn->params[i], a, simple);
		if (!pure_tokens(syn, a->t0, a->t1))
			expr_ok = 0;
		if (!simple && expr_ok) {
			char *body = astra_syn_text(&h.syn, h.syn.body->t0, h.syn.body->t1);
			if (count_name(body, pnames[i]) > 1)
				expr_ok = 0;
			free(body);
		}
	}
	if (expr_ok) {
		char *x = expr_body(&h, pnames, pvals, np);
		astra_syn_edit_owned(&e, astra_syn_off(syn, call->t0), astra_syn_end(syn, call->t1 - 1),
				      xasprintf("((%s)(%s))", fn->ret, x));
		free(x);
		r = 1;
	} else if (stmt_form_site(syn, s, call)) {
		/*
		 * RET astra_rN;
		 * {
		 *         PTYPE p = ARG;          (arguments that are not simple names)
		 *         BODY, its return E; as astra_rN = E;
		 * }
		 * the statement, the call replaced by astra_rN
		 */
		int wrap = s->parent->kind != STMT_BLOCK;
		char *ind0 = indent_at(C->rk->text, astra_syn_off(syn, s->t0));
		char *ind = wrap ? xasprintf("%s\t", ind0) : xstrdup(ind0);
		char *ind1 = xasprintf("%s\t", ind);
		char *res = strcmp(fn->ret, "void") ? fresh(C, "astra_r") : NULL;
		char **bn = xcalloc(np + 1, sizeof(char *)), **bv = xcalloc(np + 1, sizeof(char *));
		size_t nb = 0;
		struct astra_buf b = ASTRA_BUF_INIT, body = ASTRA_BUF_INIT;
		const struct astra_syn *hs = &h.syn;
		size_t k;

		if (res)
			astra_buf_addf(&b, "%s %s;\n%s", fn->ret, res, ind);
		astra_buf_adds(&b, "{\n");
		for (i = 0; i < np; i++) {
			struct astra_expr *a = call->args[i];
			char *atext = astra_syn_text(syn, a->t0, a->t1);
			int simple = simple_arg(syn, a->t0, a->t1), clash = 0;
			char *hbody = astra_syn_text(hs, hs->body->t0, hs->body->t1);
			size_t t;
			/* a simple argument replaces the parameter, unless the body assigns it or a local would capture it */
			for (t = a->t0; t < a->t1; t++)
				if (syn->toks[t].kind == SYN_IDENT && !is_member(syn, t) &&
				    is_local_name(&h, syn->text + syn->toks[t].off, syn->toks[t].len))
					clash = 1;
			if (simple && !clash) {
				struct astra_syn hsyn;
				int assigned = 0;
				if (astra_syn_lex(&hsyn, hbody, strlen(hbody)) == 0) {
					for (t = 0; t < hsyn.nr_toks; t++)
						if (astra_syn_is(&hsyn, t, pnames[i]) && !is_member(&hsyn, t) &&
						    (astra_syn_is(&hsyn, t + 1, "=") || astra_syn_is(&hsyn, t + 1, "+=") ||
						     astra_syn_is(&hsyn, t + 1, "-=") || astra_syn_is(&hsyn, t + 1, "*=") ||
						     astra_syn_is(&hsyn, t + 1, "/=") || astra_syn_is(&hsyn, t + 1, "++") ||
						     astra_syn_is(&hsyn, t + 1, "--") ||
						     (t > 0 && (astra_syn_is(&hsyn, t - 1, "++") || astra_syn_is(&hsyn, t - 1, "--") ||
								astra_syn_is(&hsyn, t - 1, "&")))))
							assigned = 1;
				}
				astra_syn_release(&hsyn);
				if (!assigned) {
					bn[nb] = xstrdup(pnames[i]);
					bv[nb++] = xstrdup(pvals[i]);
					free(atext);
					free(hbody);
					continue;
				}
			}
			/* a local of the parameter's name; renamed when the argument names it */
			{
				char *pn = xstrdup(pnames[i]);
				if (count_name(atext, pn) || astra_facts_local(f, pn, strlen(pn))) {
					free(pn);
					pn = fresh(C, "astra_p");
					bn[nb] = xstrdup(pnames[i]);
					bv[nb++] = xstrdup(pn);
				}
				astra_buf_addf(&b, "%s%s %s = %s;\n", ind1, fn->params[i].type, pn, atext);
				free(pn);
			}
			free(atext);
			free(hbody);
		}
		/* the body's statements, the return made an assignment */
		for (k = 0; k < hs->body->nr_kids; k++) {
			struct astra_stmt *st = hs->body->kids[k];
			char *txt;
			if (st == h.ret) {
				if (res) {
					char *x = astra_syn_text(hs, st->a0 + 1, st->a1);
					char *ri = indent_at(hs->text, astra_syn_off(hs, st->t0));
					astra_buf_addf(&body, "%s%s = %s;", ri, res, x);
					free(ri);
					free(x);
				}
			} else {
				size_t ls = astra_syn_off(hs, st->t0);
				/* from the line's start, so that the lines keep their relative indentation */
				while (ls > 0 && (hs->text[ls - 1] == ' ' || hs->text[ls - 1] == '\t'))
					ls--;
				txt = xstrndup(hs->text + ls, astra_syn_end(hs, st->t1 - 1) - ls);
				astra_buf_adds(&body, txt);
				free(txt);
			}
			astra_buf_addch(&body, '\n');
		}
		{
			char *bt = astra_buf_detach(&body, NULL), *sub;
			sub = subst_names(bt, bn, bv, nb);
			add_reindented(&b, sub, ind1);
			free(bt);
			free(sub);
		}
		while (b.len && (b.buf[b.len - 1] == '\n' || b.buf[b.len - 1] == '\t' || b.buf[b.len - 1] == ' '))
			b.len--;
		b.buf[b.len] = '\0';
		astra_buf_addf(&b, "\n%s}", ind);
		if (!res && s->kind == STMT_EXPR && s->a0 == call->t0 && s->a1 == call->t1) {
			/* a void call alone: the block replaces the statement */
		} else {
			/* then the statement, the call replaced by the result */
			struct astra_syn_edits ce = { NULL, 0, 0 };
			astra_buf_addf(&b, "\n%s", ind);
			astra_syn_edit(&ce, astra_syn_off(syn, call->t0), astra_syn_end(syn, call->t1 - 1), res ? res : "(void)0");
			astra_syn_apply(C->rk->text, astra_syn_off(syn, s->t0), astra_syn_end(syn, s->t1 - 1), &ce, &b);
			astra_syn_edits_release(&ce);
		}
		if (wrap) {
			/* the body of a loop or an if: one statement, so a block */
			struct astra_buf w = ASTRA_BUF_INIT;
			astra_buf_addf(&w, "{\n%s%s\n%s}", ind, b.buf, ind0);
			astra_buf_release(&b);
			b = w;
		}
		astra_syn_edit_owned(&e, astra_syn_off(syn, s->t0), astra_syn_end(syn, s->t1 - 1), astra_buf_detach(&b, NULL));
		for (i = 0; i < nb; i++) {
			free(bn[i]);
			free(bv[i]);
		}
		free(bn);
		free(bv);
		free(res);
		free(ind0);
		free(ind);
		free(ind1);
		r = e.nr ? 1 : 0;
	}
	for (i = 0; i < np; i++) {
		free(pnames[i]);
		free(pvals[i]);
	}
	free(pnames);
	free(pvals);
	helper_release(&h);
	if (r == 1 && apply_edits(C, &e, DID_INLINE) < 0)
		return -1;
	astra_syn_edits_release(&e);
	return r;
}

static int pass_inline(struct cn *C)
{
	int rounds, total = 0;
	if (!C->rk->k->env.nr_funcs)
		return 0;
	for (rounds = 0; rounds < 16; rounds++) {
		struct astra_facts f;
		struct astra_stmt **stmts = NULL;
		size_t i, nr = 0, alloc = 0;
		int did = 0;
		if (astra_facts_build(&f, C->rk) < 0)
			break;
		/* the first inlinable call, in statement order; one per round (the text changes) */
		for (i = 0; i < C->rk->syn.nr_stmts; i++) {
			ALLOC_GROW(stmts, nr + 1, alloc);
			stmts[nr++] = C->rk->syn.stmts[i];
		}
		for (i = 0; i < nr && !did; i++) {
			struct calls c;
			struct astra_stmt *s = stmts[i];
			if (s->kind != STMT_EXPR && s->kind != STMT_DECL && s->kind != STMT_IF && s->kind != STMT_FOR &&
			    s->kind != STMT_WHILE && s->kind != STMT_RETURN && s->kind != STMT_DO)
				continue;
			memset(&c, 0, sizeof(c));
			c.C = C;
			c.f = &f;
			/* only this statement's own parts, not its children's */
			{
				struct astra_stmt *saved_kids = NULL;
				size_t saved = s->nr_kids;
				(void)saved_kids;
				s->nr_kids = 0;
				astra_facts_each_part(&f, s, find_part, &c);
				s->nr_kids = saved;
			}
			while (c.found) {
				int r = inline_one(C, &f, s, c.found);
				if (r < 0) {
					free(stmts);
					astra_facts_release(&f);
					return -1;
				}
				if (r > 0) {
					did = 1;
					total++;
				}
				break;
			}
		}
		free(stmts);
		astra_facts_release(&f);
		if (!did)
			break;
	}
	return total;
}

/* ------------------------------------------------------------ the index in one statement */

/* Is the top-level statement s `v = ...;` or `v op= ...;` for the local v?  Its operator token, or NONE. */
static size_t assigns_var(const struct astra_syn *syn, const struct astra_stmt *s, const char *v)
{
	static const char *const ops[] = { "=", "+=", "-=", "*=", "<<=", NULL };
	const char *const *o;
	if (s->kind != STMT_EXPR || s->a1 < s->a0 + 3 || !astra_syn_is(syn, s->a0, v))
		return NONE;
	for (o = ops; *o; o++)
		if (astra_syn_is(syn, s->a0 + 1, *o))
			return s->a0 + 1;
	return NONE;
}

static int pass_index(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_stmt *body;
	struct astra_syn_edits e = { NULL, 0, 0 };
	size_t i;
	if (astra_facts_build(&f, rk) < 0)
		return 0;
	syn = &rk->syn;
	body = syn->body;
	for (i = 0; i < body->nr_kids && !e.nr; i++) {
		struct astra_stmt *s = body->kids[i];
		struct astra_decl *d = NULL;
		char *v, *ty, *val;
		size_t j, op, first = i + 1;
		int folded = 0;
		if (s->kind != STMT_DECL || astra_syn_decls(syn, s->a0, s->a1, &d) != 1 || d[0].is_array ||
		    d[0].ptr1 > d[0].ptr0) {
			free(d);
			continue;
		}
		v = astra_syn_tokstr(syn, d[0].name);
		ty = astra_syn_text(syn, d[0].ty0, d[0].ty1);
		if (d[0].init1 > d[0].init0) {
			val = astra_syn_text(syn, d[0].init0, d[0].init1);
		} else {
			/*
			 * `int i; i = blockDim.x * blockIdx.x; ...`: the declaration
			 * without a value takes its first assignment's (declarations
			 * that do not use i may stand between).
			 */
			struct astra_stmt *a = NULL;
			val = NULL;
			for (; first < body->nr_kids; first++) {
				a = body->kids[first];
				if (a->kind != STMT_DECL || astra_syn_mentions(syn, a->t0, a->t1, v))
					break;
			}
			if (first < body->nr_kids && (op = assigns_var(syn, a, v)) != NONE && astra_syn_is(syn, op, "=") &&
			    pure_tokens(syn, op + 1, a->a1) && !astra_syn_mentions(syn, op + 1, a->a1, v) &&
			    astra_facts_mentions_grid(&f, op + 1, a->a1, 0)) {
				val = astra_syn_text(syn, op + 1, a->a1);
				astra_edit_delete(rk->text, astra_syn_off(syn, a->t0), astra_syn_end(syn, a->t1 - 1), &e);
				first++;
				folded = 1;
			}
		}
		if (!val || (d[0].init1 > d[0].init0 && !astra_facts_mentions_grid(&f, d[0].init0, d[0].init1, 0))) {
			free(v);
			free(ty);
			free(val);
			free(d);
			continue;
		}
		for (j = first; j < body->nr_kids; j++) {
			struct astra_stmt *a = body->kids[j];
			char *rhs, *bare_ty;
			if ((op = assigns_var(syn, a, v)) == NONE) {
				/* declarations that do not use v may stand between */
				if (a->kind == STMT_DECL && !astra_syn_mentions(syn, a->t0, a->t1, v))
					continue;
				break;
			}
			rhs = astra_syn_text(syn, op + 1, a->a1);
			if (!pure_tokens(syn, op + 1, a->a1)) {
				free(rhs);
				break;
			}
			bare_ty = astra_type_bare(ty);
			{
				char *prev = xasprintf("((%s)(%s))", bare_ty, val), *nv;
				if (astra_syn_is(syn, op, "="))
					nv = subst_names(rhs, &v, &prev, 1);
				else
					nv = xasprintf("%s %.*s (%s)", prev, (int)(syn->toks[op].len - 1), syn->text + syn->toks[op].off, rhs);
				free(prev);
				free(val);
				val = nv;
			}
			free(bare_ty);
			free(rhs);
			astra_edit_delete(rk->text, astra_syn_off(syn, a->t0), astra_syn_end(syn, a->t1 - 1), &e);
			folded = 1;
		}
		if (folded && d[0].init1 > d[0].init0)
			astra_syn_edit(&e, astra_syn_off(syn, d[0].init0), astra_syn_end(syn, d[0].init1 - 1), val);
		else if (folded)
			astra_syn_edit_owned(&e, astra_syn_end(syn, d[0].name), astra_syn_end(syn, d[0].name),
					      xasprintf(" = %s", val));
		free(v);
		free(ty);
		free(val);
		free(d);
	}
	astra_facts_release(&f);
	return apply_edits(C, &e, DID_INDEX);
}

/* ------------------------------------------------------------ the bounds check */

static const char *negate_cmp(const struct astra_syn *syn, size_t op)
{
	static const char *const from[] = { "<", ">", "<=", ">=", "==", "!=" };
	static const char *const to[] = { ">=", "<=", ">", "<", "!=", "==" };
	size_t i;
	for (i = 0; i < ARRAY_SIZE(from); i++)
		if (astra_syn_is(syn, op, from[i]))
			return to[i];
	return NULL;
}

static const char *mirror_cmp(const struct astra_syn *syn, size_t op)
{
	static const char *const from[] = { "<", ">", "<=", ">=" };
	static const char *const to[] = { ">", "<", ">=", "<=" };
	size_t i;
	for (i = 0; i < ARRAY_SIZE(from); i++)
		if (astra_syn_is(syn, op, from[i]))
			return to[i];
	return NULL;
}

static const char *mirror_op(const char *op)
{
	static const char *const from[] = { "<", ">", "<=", ">=", "==", "!=" };
	static const char *const to[] = { ">", "<", ">=", "<=", "==", "!=" };
	size_t i;
	for (i = 0; i < ARRAY_SIZE(from); i++)
		if (!strcmp(op, from[i]))
			return to[i];
	return op;
}

/* The negation of cond as text: comparisons flipped, && into || (De Morgan); NULL when not that simple. */
static char *negate(const struct astra_syn *syn, const struct astra_expr *c)
{
	const char *op;
	char *a, *b, *r;
	while (c->kind == EX_PAREN)
		c = c->a;
	if (c->kind != EX_BINARY)
		return NULL;
	if (astra_syn_is(syn, c->op, "&&") || astra_syn_is(syn, c->op, "||")) {
		a = negate(syn, c->a);
		b = negate(syn, c->b);
		r = a && b ? xasprintf("%s %s %s", a, astra_syn_is(syn, c->op, "&&") ? "||" : "&&", b) : NULL;
		free(a);
		free(b);
		return r;
	}
	if (!(op = negate_cmp(syn, c->op)))
		return NULL;
	a = astra_syn_text(syn, c->a->t0, c->a->t1);
	b = astra_syn_text(syn, c->b->t0, c->b->t1);
	/* the variable first: `n > i` negated is `i >= n` */
	if (c->b->kind == EX_IDENT && c->a->kind != EX_IDENT)
		r = xasprintf("%s %s %s", b, mirror_op(op), a);
	else
		r = xasprintf("%s %s %s", a, op, b);
	free(a);
	free(b);
	return r;
}

static int pass_guard(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_syn *syn;
	struct astra_stmt *body, *g;
	struct astra_syn_edits e = { NULL, 0, 0 };
	size_t i;
	if (astra_rk_parse(rk) < 0)
		return 0;
	syn = &rk->syn;
	body = syn->body;
	for (i = 0; i < body->nr_kids && !e.nr; i++) {
		struct astra_expr *c;
		g = body->kids[i];
		if (g->kind != STMT_IF || !(c = astra_syn_expr(syn, g->a0, g->a1)))
			continue;
		while (c->kind == EX_PAREN)
			c = c->a;
		if (g->nr_kids == 1 && (g->kids[0]->kind == STMT_RETURN ||
					(g->kids[0]->kind == STMT_BLOCK && g->kids[0]->nr_kids == 1 &&
					 g->kids[0]->kids[0]->kind == STMT_RETURN))) {
			/* if (N <= i) return;  ->  if (i >= N) return;   and   { return; } -> return; */
			const char *m;
			if (c->kind == EX_BINARY && c->b->kind == EX_IDENT && c->b->t1 == c->b->t0 + 1 &&
			    c->a->kind != EX_IDENT && (m = mirror_cmp(syn, c->op)) != NULL) {
				char *a = astra_syn_text(syn, c->a->t0, c->a->t1), *b = astra_syn_text(syn, c->b->t0, c->b->t1);
				astra_syn_edit_owned(&e, astra_syn_off(syn, g->a0), astra_syn_end(syn, g->a1 - 1),
						      xasprintf("%s %s %s", b, m, a));
				free(a);
				free(b);
			}
			if (g->kids[0]->kind == STMT_BLOCK && g->kids[0]->kids[0]->t1 == g->kids[0]->kids[0]->t0 + 2) {
				char *ind = indent_at(rk->text, astra_syn_off(syn, g->t0));
				astra_syn_edit_owned(&e, astra_syn_end(syn, g->a1), astra_syn_end(syn, g->t1 - 1),
						      xasprintf("\n%s\treturn;", ind));
				free(ind);
			}
			continue;
		}
		/* if (C) { BODY } (or if (C) STMT) as the last statement: if (!C) return; BODY */
		if (i + 1 == body->nr_kids && g->nr_kids == 1 && g->kids[0]->kind != STMT_RETURN) {
			struct astra_stmt *blk = g->kids[0];
			struct astra_stmt *first = blk->kind == STMT_BLOCK ? (blk->nr_kids ? blk->kids[0] : NULL) : blk;
			struct astra_stmt *last = blk->kind == STMT_BLOCK ? (blk->nr_kids ? blk->kids[blk->nr_kids - 1] : NULL) : blk;
			char *neg = negate(syn, c), *ind;
			struct astra_buf b = ASTRA_BUF_INIT;
			size_t from, to, o;
			if (!neg || !first || astra_syn_find(syn, blk->t0, blk->t1, "return") != NONE) {
				free(neg);
				goto next;
			}
			ind = indent_at(rk->text, astra_syn_off(syn, g->t0));
			astra_buf_addf(&b, "if (%s)\n%s\treturn;\n", neg, ind);
			/* the block's lines, one level less indented */
			from = astra_syn_off(syn, first->t0);
			if (blk->kind != STMT_BLOCK && astra_syn_off(syn, g->t0) >= from - (from > 0))
				goto next_free; /* the statement is on the if's line */
			while (from > 0 && rk->text[from - 1] != '\n')
				from--;
			to = astra_syn_end(syn, last->t1 - 1);
			for (o = from; o < to;) {
				const char *nl = memchr(rk->text + o, '\n', to - o);
				size_t le = nl ? (size_t)(nl - rk->text) : to, st = o, n = 0;
				if (rk->text[st] == '\t')
					st++;
				else
					while (n < 8 && st < le && rk->text[st] == ' ')
						st++, n++;
				astra_buf_add(&b, rk->text + st, le - st);
				if (nl && le < to)
					astra_buf_addch(&b, '\n');
				o = le + 1;
			}
			/* the text before the first statement's line began with the if's own indentation */
			astra_syn_edit_owned(&e, astra_syn_off(syn, g->t0), astra_syn_end(syn, g->t1 - 1), astra_buf_detach(&b, NULL));
			free(neg);
			free(ind);
			goto next;
		next_free:
			astra_buf_release(&b);
			free(neg);
			free(ind);
		}
	next:;
	}
	if (e.nr && astra_rk_edit(rk, &e) < 0) {
		astra_syn_edits_release(&e);
		return 0; /* overlapping edits: leave the text */
	}
	{
		int n = (int)e.nr;
		astra_syn_edits_release(&e);
		if (n) {
			C->count += n;
			C->done |= DID_GUARD;
		}
		return n;
	}
}

/* ------------------------------------------------------------ early returns */

/*
 * `if (C) { A; return; } REST` at the kernel's top level, REST the rest of
 * the kernel: `if (C) { A; } else { REST }` (a body that runs element by
 * element must not return from the middle).  Not the bounds check
 * `if (i >= n) return;` (nothing before its return).
 */
static int pass_else(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_syn *syn;
	struct astra_stmt *body;
	struct astra_syn_edits e = { NULL, 0, 0 };
	size_t i;
	if (astra_rk_parse(rk) < 0)
		return 0;
	syn = &rk->syn;
	body = syn->body;
	for (i = 0; i + 1 < body->nr_kids; i++) {
		struct astra_stmt *g = body->kids[i], *blk, *ret;
		char *ind;
		size_t o, from, to;
		if (g->kind != STMT_IF || g->nr_kids != 1 || (blk = g->kids[0])->kind != STMT_BLOCK || blk->nr_kids < 2 ||
		    (ret = blk->kids[blk->nr_kids - 1])->kind != STMT_RETURN || ret->t1 != ret->t0 + 2 ||
		    astra_syn_find(syn, blk->t0, ret->t0, "return") != NONE)
			continue;
		ind = indent_at(rk->text, astra_syn_off(syn, g->t0));
		astra_edit_delete(rk->text, astra_syn_off(syn, ret->t0), astra_syn_end(syn, ret->t1 - 1), &e);
		from = astra_syn_off(syn, body->kids[i + 1]->t0);
		to = astra_syn_end(syn, body->kids[body->nr_kids - 1]->t1 - 1);
		astra_syn_edit_owned(&e, astra_syn_end(syn, g->t1 - 1), astra_syn_end(syn, g->t1 - 1), xstrdup(" else {"));
		/* the rest one level deeper */
		o = from;
		while (o > 0 && rk->text[o - 1] != '\n')
			o--;
		astra_syn_edit(&e, o, o, "\t");
		for (; o < to; o++)
			if (rk->text[o] == '\n' && o + 1 < to && rk->text[o + 1] != '\n')
				astra_syn_edit(&e, o + 1, o + 1, "\t");
		astra_syn_edit_owned(&e, to, to, xasprintf("\n%s}", ind));
		free(ind);
		break;
	}
	return apply_edits(C, &e, DID_ELSE);
}

/* ------------------------------------------------------------ while loops */

static int is_continue_of(struct astra_stmt *s, void *data)
{
	struct astra_stmt *loop = data, *p;
	if (s->kind != STMT_CONTINUE)
		return 0;
	for (p = s->parent; p; p = p->parent)
		if (p->kind == STMT_FOR || p->kind == STMT_WHILE || p->kind == STMT_DO)
			return p == loop;
	return 0;
}

static int pass_while(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_syn_edits e = { NULL, 0, 0 };
	size_t i;
	if (astra_facts_build(&f, rk) < 0)
		return 0;
	syn = &rk->syn;
	for (i = 0; i < syn->nr_stmts && !e.nr; i++) {
		struct astra_stmt *w = syn->stmts[i], *blk, *inc, *decl = NULL, *par = w->parent;
		struct astra_decl *d = NULL;
		size_t k, op;
		char *v = NULL;
		if (w->kind != STMT_WHILE || !par || par->kind != STMT_BLOCK || w->nr_kids != 1 ||
		    (blk = w->kids[0])->kind != STMT_BLOCK || blk->nr_kids < 2)
			continue;
		/* while (v < N) { ...; v += S; } right after `T v = START;` */
		for (k = 0; k < par->nr_kids && par->kids[k] != w; k++)
			;
		if (k == 0 || par->kids[k - 1]->kind != STMT_DECL)
			continue;
		decl = par->kids[k - 1];
		if (astra_syn_decls(syn, decl->a0, decl->a1, &d) != 1 || d[0].init1 <= d[0].init0 || d[0].is_array ||
		    d[0].ptr1 > d[0].ptr0) {
			free(d);
			continue;
		}
		v = astra_syn_tokstr(syn, d[0].name);
		inc = blk->kids[blk->nr_kids - 1];
		op = assigns_var(syn, inc, v);
		if (!(w->a1 > w->a0 + 2 && astra_syn_is(syn, w->a0, v) && astra_syn_is(syn, w->a0 + 1, "<")) ||
		    op == NONE || !astra_syn_is(syn, op, "+=") || astra_syn_mentions(syn, op + 1, inc->a1, v) ||
		    astra_syn_walk(blk, is_continue_of, w) ||
		    astra_facts_assigned_in(&f, v, strlen(v), blk->t0, inc->t0) ||
		    /* v must not be used after the loop */
		    astra_syn_mentions(syn, w->t1, par->t1, v)) {
			free(v);
			free(d);
			continue;
		}
		{
			char *ty = astra_syn_text(syn, d[0].ty0, d[0].ty1), *init = astra_syn_text(syn, d[0].init0, d[0].init1);
			char *cond = astra_syn_text(syn, w->a0, w->a1), *stride = astra_syn_text(syn, op + 1, inc->a1);
			astra_edit_delete(rk->text, astra_syn_off(syn, decl->t0), astra_syn_end(syn, decl->t1 - 1), &e);
			astra_syn_edit_owned(&e, astra_syn_off(syn, w->t0), astra_syn_end(syn, w->a1),
					      xasprintf("for (%s %s = %s; %s; %s += %s)", ty, v, init, cond, v, stride));
			astra_edit_delete(rk->text, astra_syn_off(syn, inc->t0), astra_syn_end(syn, inc->t1 - 1), &e);
			free(ty);
			free(init);
			free(cond);
			free(stride);
		}
		free(v);
		free(d);
	}
	astra_facts_release(&f);
	return apply_edits(C, &e, DID_WHILE);
}

/* ------------------------------------------------------------ strides */

static int pass_stride(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_syn_edits e = { NULL, 0, 0 };
	long blk = astra_rk_block_literal(rk);
	size_t i;
	if (blk <= 0 || astra_facts_build(&f, rk) < 0)
		return 0;
	syn = &rk->syn;
	for (i = 0; i < syn->nr_stmts; i++) {
		struct astra_stmt *s = syn->stmts[i];
		struct astra_decl *d = NULL;
		struct astra_expr *start;
		char *v;
		size_t op;
		if (s->kind != STMT_FOR || astra_syn_decls(syn, s->a0, s->a1, &d) != 1 || d[0].init1 <= d[0].init0) {
			free(d);
			continue;
		}
		v = astra_syn_tokstr(syn, d[0].name);
		start = astra_syn_expr(syn, d[0].init0, d[0].init1);
		op = s->c0 + 1;
		/* for (v = threadIdx.x; ...; v += B) with B the launch's block size */
		if (start && astra_facts_tix(&f, start) == TIX_TID && s->c1 == s->c0 + 3 && astra_syn_is(syn, s->c0, v) &&
		    astra_syn_is(syn, op, "+=") && syn->toks[op + 1].kind == SYN_NUMBER) {
			char *lit = astra_syn_tokstr(syn, op + 1), *end;
			long val = strtol(lit, &end, 0);
			while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
				end++;
			if (!*end && val == blk)
				astra_syn_edit(&e, astra_syn_off(syn, op + 1), astra_syn_end(syn, op + 1), "blockDim.x");
			free(lit);
		}
		free(v);
		free(d);
	}
	/*
	 * blockIdx.x * B (or B * blockIdx.x) with B the launch's literal block
	 * size (BLOCK_SIZE once expanded): blockDim.x is B in every launch, and
	 * both operands are unsigned either way.
	 */
	for (i = syn->body->t0; i + 4 < syn->body->t1; i++) {
		size_t lit = NONE;
		if (astra_syn_is(syn, i, "blockIdx") && astra_syn_is(syn, i + 1, ".") && astra_syn_is(syn, i + 2, "x") &&
		    astra_syn_is(syn, i + 3, "*") && syn->toks[i + 4].kind == SYN_NUMBER)
			lit = i + 4;
		else if (syn->toks[i].kind == SYN_NUMBER && astra_syn_is(syn, i + 1, "*") &&
			 astra_syn_is(syn, i + 2, "blockIdx") && astra_syn_is(syn, i + 3, ".") &&
			 astra_syn_is(syn, i + 4, "x") && (i == syn->body->t0 || !is_member(syn, i)))
			lit = i;
		if (lit != NONE) {
			char *txt = astra_syn_tokstr(syn, lit), *end;
			long val = strtol(txt, &end, 0);
			while (*end == 'u' || *end == 'U')
				end++;
			if (!*end && val == blk)
				astra_syn_edit(&e, astra_syn_off(syn, lit), astra_syn_end(syn, lit), "blockDim.x");
			free(txt);
		}
	}
	astra_facts_release(&f);
	return apply_edits(C, &e, DID_STRIDE);
}

/* ------------------------------------------------------------ 2-D blocks of a 1-D grid */

/* block=dim3(X, Y) or dim3(X, Y, 1) with literals: 0 and X, Y; else -1. */
static int block_2d(const char *b, long *x, long *y)
{
	char *end;
	const char *p = b;
	long z = 1;
	while (*p == ' ')
		p++;
	if (strncmp(p, "dim3", 4))
		return -1;
	p += 4;
	while (*p == ' ')
		p++;
	if (*p++ != '(')
		return -1;
	*x = strtol(p, &end, 0);
	p = end + strspn(end, " ");
	if (*p++ != ',')
		return -1;
	*y = strtol(p, &end, 0);
	p = end + strspn(end, " ");
	if (*p == ',') {
		z = strtol(p + 1, &end, 0);
		p = end + strspn(end, " ");
	}
	if (*p++ != ')' || p[strspn(p, " ")] || *x <= 0 || *y <= 1 || z != 1 || *x * *y > 1024)
		return -1;
	return 0;
}

/*
 * A 2-D block of a 1-D grid (block=dim3(32, 8), threadIdx.y the row of a
 * block of rows, threadIdx.x the lane; no blockIdx.y) is a 1-D block of
 * X * Y threads in which thread t is (t % X, t / X): the same linear
 * index, so the same warps, barriers and shared memory.  threadIdx.x
 * becomes (threadIdx.x % X), threadIdx.y (threadIdx.x / X), blockDim.x X
 * and blockDim.y Y, and the launch's block X * Y: the warp-per-row and
 * block-per-row shapes the rules read (lane loops, warp indices).
 */
static int pass_block2d(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_syn_edits e = { NULL, 0, 0 };
	long bx, by;
	size_t t;
	int used_y = 0;
	if (!rk->block || block_2d(rk->block, &bx, &by) < 0 || astra_facts_build(&f, rk) < 0)
		return 0;
	syn = &rk->syn;
	for (t = syn->body->t0; t + 2 < syn->body->t1; t++) {
		const char *repl = NULL;
		char *own = NULL;
		if (!astra_syn_is(syn, t + 1, ".") || is_member(syn, t))
			continue;
		if (astra_syn_is(syn, t, "blockIdx") && !astra_syn_is(syn, t + 2, "x"))
			goto out;
		if ((astra_syn_is(syn, t, "threadIdx") || astra_syn_is(syn, t, "blockDim")) && astra_syn_is(syn, t + 2, "z"))
			goto out;
		if (astra_syn_is(syn, t, "threadIdx") && astra_syn_is(syn, t + 2, "x"))
			repl = own = xasprintf("(threadIdx.x %% %ld)", bx);
		else if (astra_syn_is(syn, t, "threadIdx") && astra_syn_is(syn, t + 2, "y"))
			repl = own = xasprintf("(threadIdx.x / %ld)", bx), used_y = 1;
		else if (astra_syn_is(syn, t, "blockDim") && astra_syn_is(syn, t + 2, "x"))
			repl = own = xasprintf("%ld", bx);
		else if (astra_syn_is(syn, t, "blockDim") && astra_syn_is(syn, t + 2, "y"))
			repl = own = xasprintf("%ld", by), used_y = 1;
		if (repl)
			astra_syn_edit_owned(&e, astra_syn_off(syn, t), astra_syn_end(syn, t + 2), own);
	}
	if (!used_y)
		goto out;
	astra_facts_release(&f);
	{
		char *blk = xasprintf("%ld", bx * by);
		int n = apply_edits(C, &e, DID_BLOCK2D);
		if (n > 0)
			astra_rk_set_launch(rk, NULL, blk, NULL);
		free(blk);
		return n;
	}
out:
	astra_syn_edits_release(&e);
	astra_facts_release(&f);
	return 0;
}

/* ------------------------------------------------------------ staged copies */

/*
 * `extern __shared__ T xs[]; ... for (k = threadIdx.x; k < K; k +=
 * blockDim.x) xs[k] = P[k]; __syncthreads();` at the top level, with P a
 * parameter pointing to const and xs written nowhere else, makes every
 * xs[j] with 0 <= j < K equal to P[j] (converted to T) for the rest of
 * the kernel; outside [0, K) xs holds nothing defined.  So the reads
 * become reads of P, and the staging, its barrier and the array go: the
 * kernel is what it computes (a thread-per-row GEMV), and a dynamic array
 * leaves the launch with shmem=0 (a variant carries its launch).
 */
static int pass_stage(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_stmt *body;
	struct astra_syn_edits e = { NULL, 0, 0 };
	size_t i, t, si = NONE, li = NONE;
	const struct astra_local *xs = NULL;
	const struct astra_param *src = NULL;
	char *ty = NULL, *pty = NULL, *k = NULL;
	int is_extern = 0, n = 0;
	if (astra_facts_build(&f, rk) < 0)
		return 0;
	syn = &rk->syn;
	body = syn->body;
	for (i = 0; i + 2 < body->nr_kids && li == NONE; i++) {
		struct astra_stmt *s = body->kids[i], *w;
		struct astra_decl *d = NULL;
		const struct astra_local *l;
		size_t a;
		if (s->kind != STMT_FOR || astra_syn_decls(syn, s->a0, s->a1, &d) != 1 || d[0].init1 <= d[0].init0 ||
		    astra_facts_tix(&f, astra_syn_expr(syn, d[0].init0, d[0].init1)) != TIX_TID) {
			free(d);
			continue;
		}
		free(k);
		k = astra_syn_tokstr(syn, d[0].name);
		free(d);
		w = s->kids[0];
		if (w->kind == STMT_BLOCK && w->nr_kids == 1)
			w = w->kids[0];
		a = w->t0;
		/* k < K; k += blockDim.x; body xs[k] = P[k]; */
		if (s->b1 < s->b0 + 3 || !astra_syn_is(syn, s->b0, k) || !astra_syn_is(syn, s->b0 + 1, "<") ||
		    s->c1 != s->c0 + 5 || !astra_syn_is(syn, s->c0, k) || !astra_syn_is(syn, s->c0 + 1, "+=") ||
		    !astra_syn_is(syn, s->c0 + 2, "blockDim") || !astra_syn_is(syn, s->c0 + 4, "x") ||
		    w->kind != STMT_EXPR || w->t1 != a + 10 || !astra_syn_is(syn, a + 1, "[") ||
		    !astra_syn_is(syn, a + 2, k) || !astra_syn_is(syn, a + 3, "]") || !astra_syn_is(syn, a + 4, "=") ||
		    !astra_syn_is(syn, a + 6, "[") || !astra_syn_is(syn, a + 7, k) || !astra_syn_is(syn, a + 8, "]"))
			continue;
		l = astra_facts_local_tok(&f, a);
		src = astra_rk_param(rk, syn->text + syn->toks[a + 5].off, syn->toks[a + 5].len);
		if (!l || !l->is_shared || !l->d.is_array || !src || !src->is_pointer || !src->is_const)
			continue;
		/* the barrier right after */
		if (body->kids[i + 1]->kind != STMT_EXPR || !astra_syn_is(syn, body->kids[i + 1]->t0, "__syncthreads"))
			continue;
		xs = l;
		li = i;
	}
	if (li == NONE)
		goto out;
	/* xs is read only as xs[...] elsewhere; its declaration is a top-level statement of its own */
	for (i = 0; i < body->nr_kids; i++)
		if (body->kids[i] == xs->stmt)
			si = i;
	if (si == NONE || si > li || xs->nr_decls != 1)
		goto out;
	is_extern = astra_syn_mentions(syn, xs->stmt->t0, xs->stmt->t1, "extern");
	for (t = body->t0; t < body->t1; t++) {
		size_t close;
		int depth = 0;
		if (!astra_syn_is(syn, t, xs->name) || is_member(syn, t) ||
		    (t >= xs->stmt->t0 && t < xs->stmt->t1) ||
		    (t >= body->kids[li]->t0 && t < body->kids[li]->t1))
			continue;
		if (!astra_syn_is(syn, t + 1, "["))
			goto out;
		for (close = t + 1; close < body->t1; close++) {
			if (astra_syn_is(syn, close, "[") || astra_syn_is(syn, close, "("))
				depth++;
			else if (astra_syn_is(syn, close, "]") || astra_syn_is(syn, close, ")"))
				if (--depth == 0)
					break;
		}
		/* a read: not assigned, incremented or addressed */
		if (close >= body->t1 || astra_syn_is(syn, t - 1, "&") || astra_syn_is(syn, t - 1, "++") ||
		    astra_syn_is(syn, t - 1, "--") || astra_syn_is(syn, close + 1, "++") ||
		    astra_syn_is(syn, close + 1, "--") ||
		    (syn->toks[close + 1].kind == SYN_PUNCT && syn->toks[close + 1].len >= 1 &&
		     syn->text[syn->toks[close + 1].off + syn->toks[close + 1].len - 1] == '=' &&
		     !astra_syn_is(syn, close + 1, "==") && !astra_syn_is(syn, close + 1, "<=") &&
		     !astra_syn_is(syn, close + 1, ">=") && !astra_syn_is(syn, close + 1, "!=")))
			goto out;
		n++;
	}
	{
		/* the element type without extern, __shared__, static, volatile, __align__(...) */
		struct astra_buf b = ASTRA_BUF_INIT;
		for (t = xs->d.ty0; t < xs->d.ty1; t++) {
			if (astra_syn_is(syn, t, "__align__") || astra_syn_is(syn, t, "alignas")) {
				int depth = 0;
				for (t++; t < xs->d.ty1; t++)
					if (astra_syn_is(syn, t, "("))
						depth++;
					else if (astra_syn_is(syn, t, ")") && --depth == 0)
						break;
				continue;
			}
			if (astra_syn_is(syn, t, "extern") || astra_syn_is(syn, t, "__shared__") ||
			    astra_syn_is(syn, t, "static") || astra_syn_is(syn, t, "volatile"))
				continue;
			astra_buf_addf(&b, "%s%.*s", b.len ? " " : "", (int)syn->toks[t].len,
				       syn->text + syn->toks[t].off);
		}
		ty = astra_buf_detach(&b, NULL);
	}
	pty = astra_type_bare(src->type);
	{
		char *bt = astra_type_bare(ty);
		int same = !strcmp(bt, src->elem_type ? src->elem_type : "");
		for (t = body->t0; t < body->t1; t++)
			if (astra_syn_is(syn, t, xs->name) && !is_member(syn, t) &&
			    !(t >= xs->stmt->t0 && t < xs->stmt->t1) &&
			    !(t >= body->kids[li]->t0 && t < body->kids[li]->t1)) {
				if (same) {
					astra_syn_edit(&e, astra_syn_off(syn, t), astra_syn_end(syn, t), src->name);
				} else {
					/* ((T)P[...]) */
					size_t close, depth = 0;
					for (close = t + 1; close < body->t1; close++) {
						if (astra_syn_is(syn, close, "[") || astra_syn_is(syn, close, "("))
							depth++;
						else if ((astra_syn_is(syn, close, "]") || astra_syn_is(syn, close, ")")) &&
							 --depth == 0)
							break;
					}
					astra_syn_edit_owned(&e, astra_syn_off(syn, t), astra_syn_end(syn, t),
							      xasprintf("((%s)%s", bt, src->name));
					astra_syn_edit(&e, astra_syn_end(syn, close), astra_syn_end(syn, close), ")");
				}
			}
		free(bt);
	}
	astra_edit_delete(rk->text, astra_syn_off(syn, xs->stmt->t0), astra_syn_end(syn, xs->stmt->t1 - 1), &e);
	astra_edit_delete(rk->text, astra_syn_off(syn, body->kids[li]->t0), astra_syn_end(syn, body->kids[li]->t1 - 1),
			  &e);
	astra_edit_delete(rk->text, astra_syn_off(syn, body->kids[li + 1]->t0),
			  astra_syn_end(syn, body->kids[li + 1]->t1 - 1), &e);
	if (is_extern && rk->shmem)
		astra_rk_set_launch(rk, NULL, NULL, "0");
out:
	free(k);
	free(ty);
	free(pty);
	astra_facts_release(&f);
	(void)n;
	return apply_edits(C, &e, DID_STAGE);
}

/* ------------------------------------------------------------ maxima and minima */

/* The text of e with outer parentheses removed. */
static char *bare_text(const struct astra_syn *syn, const struct astra_expr *e)
{
	while (e->kind == EX_PAREN)
		e = e->a;
	return astra_syn_text(syn, e->t0, e->t1);
}

static int same_text(const struct astra_syn *syn, const struct astra_expr *a, const struct astra_expr *b)
{
	char *x = bare_text(syn, a), *y = bare_text(syn, b);
	int r;
	/* compare without blanks */
	{
		char *p, *q;
		for (p = q = x; *p; p++)
			if (!isspace((unsigned char)*p))
				*q++ = *p;
		*q = '\0';
		for (p = q = y; *p; p++)
			if (!isspace((unsigned char)*p))
				*q++ = *p;
		*q = '\0';
	}
	r = !strcmp(x, y);
	free(x);
	free(y);
	return r;
}

/*
 * cond compares M and E (either order) and the taken branch sets M = E:
 * the update is a max (E > M) or a min (E < M).  Returns "fmaxf" etc. for
 * M's type, or NULL.
 */
static const char *minmax_fn(struct astra_facts *f, const struct astra_expr *cond, const struct astra_expr *m,
			     const struct astra_expr *val, int when_true)
{
	const struct astra_syn *syn = f->syn;
	int is_max;
	enum astra_type ty;
	while (cond->kind == EX_PAREN)
		cond = cond->a;
	if (cond->kind != EX_BINARY)
		return NULL;
	if (same_text(syn, cond->a, val) && same_text(syn, cond->b, m))
		is_max = astra_syn_is(syn, cond->op, ">") || astra_syn_is(syn, cond->op, ">=") ? 1 :
			 astra_syn_is(syn, cond->op, "<") || astra_syn_is(syn, cond->op, "<=") ? 0 : -1;
	else if (same_text(syn, cond->a, m) && same_text(syn, cond->b, val))
		is_max = astra_syn_is(syn, cond->op, "<") || astra_syn_is(syn, cond->op, "<=") ? 1 :
			 astra_syn_is(syn, cond->op, ">") || astra_syn_is(syn, cond->op, ">=") ? 0 : -1;
	else
		return NULL;
	if (is_max < 0)
		return NULL;
	if (!when_true)
		is_max = !is_max;
	ty = astra_facts_type(f, m);
	if (ty == TY_FLOAT && astra_facts_type(f, val) == TY_FLOAT)
		return is_max ? "fmaxf" : "fminf";
	if (ty == TY_INT && astra_facts_type(f, val) == TY_INT)
		return is_max ? "max" : "min";
	return NULL;
}

struct mm {
	struct astra_facts *f;
	struct astra_syn_edits *e;
};

/* M = C ? E : M   and   M = C ? M : E */
static int ternary_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *x,
			void *data)
{
	struct mm *m = data;
	const struct astra_syn *syn = f->syn;
	struct astra_expr *r;
	const char *fn = NULL;
	(void)t0;
	(void)t1;
	if (!x || s->kind != STMT_EXPR || x->kind != EX_ASSIGN || !astra_syn_is(syn, x->op, "="))
		return 0;
	r = x->b;
	while (r->kind == EX_PAREN)
		r = r->a;
	if (r->kind != EX_COND || !pure_tokens(syn, x->a->t0, x->a->t1) || !pure_tokens(syn, r->t0, r->t1))
		return 0;
	if (same_text(syn, r->c, x->a))
		fn = minmax_fn(f, r->a, x->a, r->b, 1);
	else if (same_text(syn, r->b, x->a))
		fn = minmax_fn(f, r->a, x->a, r->c, 0);
	if (fn) {
		char *mt = bare_text(syn, x->a), *vt = bare_text(syn, same_text(syn, r->c, x->a) ? r->b : r->c);
		astra_syn_edit_owned(m->e, astra_syn_off(syn, r->t0), astra_syn_end(syn, r->t1 - 1),
				      xasprintf("%s(%s, %s)", fn, mt, vt));
		free(mt);
		free(vt);
	}
	return 0;
}

static int pass_minmax(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_syn_edits e = { NULL, 0, 0 };
	struct mm m;
	size_t i;
	if (astra_facts_build(&f, rk) < 0)
		return 0;
	syn = &rk->syn;
	m.f = &f;
	m.e = &e;
	/* if (E > M) M = E;  (or { M = E; }) */
	for (i = 0; i < syn->nr_stmts; i++) {
		struct astra_stmt *s = syn->stmts[i], *then;
		struct astra_expr *cond, *as;
		const char *fn;
		if (s->kind != STMT_IF || s->nr_kids != 1)
			continue;
		then = s->kids[0];
		if (then->kind == STMT_BLOCK && then->nr_kids == 1)
			then = then->kids[0];
		if (then->kind != STMT_EXPR || !(cond = astra_syn_expr(syn, s->a0, s->a1)) ||
		    !(as = astra_syn_expr(syn, then->a0, then->a1)) || as->kind != EX_ASSIGN || !astra_syn_is(syn, as->op, "=") ||
		    !pure_tokens(syn, s->a0, s->a1) || !pure_tokens(syn, as->b->t0, as->b->t1) ||
		    !pure_tokens(syn, as->a->t0, as->a->t1))
			continue;
		fn = minmax_fn(&f, cond, as->a, as->b, 1);
		if (fn) {
			char *mt = bare_text(syn, as->a), *vt = bare_text(syn, as->b);
			astra_syn_edit_owned(&e, astra_syn_off(syn, s->t0), astra_syn_end(syn, s->t1 - 1),
					      xasprintf("%s = %s(%s, %s);", mt, fn, mt, vt));
			free(mt);
			free(vt);
		}
	}
	astra_facts_each_part(&f, syn->body, ternary_part, &m);
	astra_facts_release(&f);
	if (e.nr && astra_rk_edit(rk, &e) < 0) {
		astra_syn_edits_release(&e);
		return 0; /* nested: leave the text */
	}
	{
		int n = (int)e.nr;
		astra_syn_edits_release(&e);
		if (n) {
			C->count += n;
			C->done |= DID_MINMAX;
		}
		return n;
	}
}

/* ------------------------------------------------------------ the passes */

int astra_canon(struct astra_rk *rk, struct astra_buf *notes)
{
	static const struct {
		unsigned bit;
		const char *what;
	} kinds[] = {
		{ DID_MACRO, "macros expanded" }, { DID_CONST, "constants replaced by their values" },
		{ DID_INLINE, "__device__ functions inlined" }, { DID_INDEX, "an index set in several statements made one" },
		{ DID_GUARD, "the bounds check made an early return" }, { DID_WHILE, "while loops made for loops" },
		{ DID_STRIDE, "the block size's value as a stride or a block's offset made blockDim.x" },
		{ DID_MINMAX, "maxima and minima written with if or ?: made fmaxf/fminf/max/min" },
		{ DID_ELSE, "an early return in an if made an else" },
		{ DID_STAGE, "a shared-memory copy of an input read from the input" },
		{ DID_BLOCK2D, "a 2-D block of a 1-D grid made a 1-D block" },
	};
	struct cn C;
	size_t i;
	memset(&C, 0, sizeof(C));
	C.rk = rk;
	C.notes = notes;
	if (pass_macros(&C) < 0 || pass_consts(&C) < 0 || pass_inline(&C) < 0 || pass_macros(&C) < 0 ||
	    pass_consts(&C) < 0 || pass_stage(&C) < 0 || pass_block2d(&C) < 0 || pass_index(&C) < 0 ||
	    pass_guard(&C) < 0 || pass_else(&C) < 0 || pass_while(&C) < 0 || pass_stride(&C) < 0 ||
	    pass_minmax(&C) < 0)
		return -1;
	if (notes)
		for (i = 0; i < ARRAY_SIZE(kinds); i++)
			if (C.done & kinds[i].bit)
				astra_buf_addf(notes, "%s\n", kinds[i].what);
	return C.count;
}

int astra_canon_minmax(struct astra_rk *rk)
{
	struct cn C;
	memset(&C, 0, sizeof(C));
	C.rk = rk;
	return pass_minmax(&C) < 0 ? -1 : C.count;
}
