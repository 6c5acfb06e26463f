/*
 * canon-inline.c - the rules' wording, first passes (canon-int.h): an
 * object-like macro or a constant replaced by its value, a __device__
 * function's body put in place of its call.
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
#include "rules/canon-int.h"
#include "rules/facts.h"

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

int astra_canon_pass_macros(struct cn *C)
{
	struct astra_rk *rk = C->rk;
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t from, to;
	int n;
	if (!rk->k->env.nr_macros || astra_canon_body_bytes(rk->text, rk->k->name, &from, &to) < 0)
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

int astra_canon_pass_consts(struct cn *C)
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
		if (syn->toks[t].kind != SYN_IDENT || astra_canon_is_member(syn, t))
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
	return astra_canon_apply_edits(C, &e, DID_CONST);
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
int astra_canon_pure_tokens(const struct astra_syn *syn, size_t t0, size_t t1)
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
		    !astra_canon_pure_tokens(&h->syn, d[0].init0, d[0].init1))
			h->expr_form = 0;
		free(d);
	}
	if (ret && !astra_canon_pure_tokens(&h->syn, ret->a0 + 1, ret->a1))
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
		if (syn->toks[t].kind != SYN_IDENT || astra_canon_is_member(syn, t) || is_local_name(h, s, n))
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
		t = astra_canon_subst_names(e, &name, &val, 1);
		free(e);
		e = t;
		free(name);
		free(init);
		free(val);
		free(d);
	}
	t = astra_canon_subst_names(e, pnames, pvals, np);
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
		if (!astra_canon_pure_tokens(syn, a->t0, a->t1))
			expr_ok = 0;
		if (!simple && expr_ok) {
			char *body = astra_syn_text(&h.syn, h.syn.body->t0, h.syn.body->t1);
			if (astra_canon_count_name(body, pnames[i]) > 1)
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
		char *ind0 = astra_canon_indent_at(C->rk->text, astra_syn_off(syn, s->t0));
		char *ind = wrap ? xasprintf("%s\t", ind0) : xstrdup(ind0);
		char *ind1 = xasprintf("%s\t", ind);
		char *res = strcmp(fn->ret, "void") ? astra_canon_fresh(C, "astra_r") : NULL;
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
				if (syn->toks[t].kind == SYN_IDENT && !astra_canon_is_member(syn, t) &&
				    is_local_name(&h, syn->text + syn->toks[t].off, syn->toks[t].len))
					clash = 1;
			if (simple && !clash) {
				struct astra_syn hsyn;
				int assigned = 0;
				if (astra_syn_lex(&hsyn, hbody, strlen(hbody)) == 0) {
					for (t = 0; t < hsyn.nr_toks; t++)
						if (astra_syn_is(&hsyn, t, pnames[i]) && !astra_canon_is_member(&hsyn, t) &&
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
				if (astra_canon_count_name(atext, pn) || astra_facts_local(f, pn, strlen(pn))) {
					free(pn);
					pn = astra_canon_fresh(C, "astra_p");
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
					char *ri = astra_canon_indent_at(hs->text, astra_syn_off(hs, st->t0));
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
			sub = astra_canon_subst_names(bt, bn, bv, nb);
			astra_canon_add_reindented(&b, sub, ind1);
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
	if (r == 1 && astra_canon_apply_edits(C, &e, DID_INLINE) < 0)
		return -1;
	astra_syn_edits_release(&e);
	return r;
}

int astra_canon_pass_inline(struct cn *C)
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
