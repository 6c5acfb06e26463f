/*
 * canon-forms.c - the rules' wording, the forms (canon-int.h): the index
 * in one statement, the bounds check, early returns, while loops,
 * strides, 2-D blocks of a 1-D grid, staged copies, maxima and minima.
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

int astra_canon_pass_index(struct cn *C)
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
			    astra_canon_pure_tokens(syn, op + 1, a->a1) && !astra_syn_mentions(syn, op + 1, a->a1, v) &&
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
			if (!astra_canon_pure_tokens(syn, op + 1, a->a1)) {
				free(rhs);
				break;
			}
			bare_ty = astra_type_bare(ty);
			{
				char *prev = xasprintf("((%s)(%s))", bare_ty, val), *nv;
				if (astra_syn_is(syn, op, "="))
					nv = astra_canon_subst_names(rhs, &v, &prev, 1);
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
	return astra_canon_apply_edits(C, &e, DID_INDEX);
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

int astra_canon_pass_guard(struct cn *C)
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
				char *ind = astra_canon_indent_at(rk->text, astra_syn_off(syn, g->t0));
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
			ind = astra_canon_indent_at(rk->text, astra_syn_off(syn, g->t0));
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
int astra_canon_pass_else(struct cn *C)
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
		ind = astra_canon_indent_at(rk->text, astra_syn_off(syn, g->t0));
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
	return astra_canon_apply_edits(C, &e, DID_ELSE);
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

int astra_canon_pass_while(struct cn *C)
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
	return astra_canon_apply_edits(C, &e, DID_WHILE);
}

/* ------------------------------------------------------------ strides */

int astra_canon_pass_stride(struct cn *C)
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
			 astra_syn_is(syn, i + 4, "x") && (i == syn->body->t0 || !astra_canon_is_member(syn, i)))
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
	return astra_canon_apply_edits(C, &e, DID_STRIDE);
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
int astra_canon_pass_block2d(struct cn *C)
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
		if (!astra_syn_is(syn, t + 1, ".") || astra_canon_is_member(syn, t))
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
		int n = astra_canon_apply_edits(C, &e, DID_BLOCK2D);
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
int astra_canon_pass_stage(struct cn *C)
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
		if (!astra_syn_is(syn, t, xs->name) || astra_canon_is_member(syn, t) ||
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
			if (astra_syn_is(syn, t, xs->name) && !astra_canon_is_member(syn, t) &&
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
	return astra_canon_apply_edits(C, &e, DID_STAGE);
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
	if (r->kind != EX_COND || !astra_canon_pure_tokens(syn, x->a->t0, x->a->t1) || !astra_canon_pure_tokens(syn, r->t0, r->t1))
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

int astra_canon_pass_minmax(struct cn *C)
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
		    !astra_canon_pure_tokens(syn, s->a0, s->a1) || !astra_canon_pure_tokens(syn, as->b->t0, as->b->t1) ||
		    !astra_canon_pure_tokens(syn, as->a->t0, as->a->t1))
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
