/*
 * r-online.c - rule "online-softmax": a row's maximum and its sum of
 * exponentials in one pass instead of two.
 *
 * The shape it reads (after block-per-row or warp-per-row, or in a
 * thread's own loops; names free):
 *
 *   for (H) m = fmaxf(m, X);                  the maximum
 *   [m = astra_.._wred_fmaxf(m);]             its combination over the row's threads
 *   float s = 0.0f;   [if (lane != 0) s = 0;]
 *   for (H) s += expf(X - m);                 the same header H, the same X
 *   [s = astra_.._wred_sum(s);]
 *
 * It becomes one loop over H that keeps the running maximum and rescales
 * the running sum when the maximum grows,
 *
 *   for (H) {
 *       const float x = X;
 *       if (x > m) { s = s * expf(m - x) + 1.0f; m = x; }
 *       else s += expf(x - m);
 *   }
 *   [astra_.._wonline(m, s);]                 the pairs merged: max, rescaled sums
 *
 * so the row is read once for both (then once more for the output), and
 * each element costs one exponential in the pass instead of a maximum and
 * an exponential in two.  The result is the maximum exactly and the sum up
 * to rounding: a term added before the maximum grew is rescaled by
 * exp(m_old - m_new) instead of computed once as exp(x - m_new) (the
 * verifier's tolerance judges it).  Declines unless the sum starts at 0,
 * nothing between the loops uses m, and the two combinations (when
 * present) are the same kind (both warp or both block).
 */
#include "autoconfig.h"

#include <ctype.h>
#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"
#include "rules/helpers.h"
#include "rules/rule.h"

#define NONE ((size_t)-1)

struct on {
	struct astra_rk *rk;
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_syn_edits edits;
	unsigned helpers;
	int count;
	struct astra_buf detail;
};

/* The statement s without a block of one around it. */
static struct astra_stmt *single(struct astra_stmt *s)
{
	while (s && s->kind == STMT_BLOCK && s->nr_kids == 1)
		s = s->kids[0];
	return s;
}

/* Text of tokens [t0, t1) without blanks, for comparing headers and values. */
static char *squeezed(const struct astra_syn *syn, size_t t0, size_t t1)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t t;
	for (t = t0; t < t1; t++) {
		if (b.len && syn->toks[t].kind == SYN_IDENT && syn->toks[t - 1].kind == SYN_IDENT)
			astra_buf_addch(&b, ' ');
		astra_buf_add(&b, syn->text + syn->toks[t].off, syn->toks[t].len);
	}
	return astra_buf_detach(&b, NULL);
}

static char *loop_header(const struct astra_syn *syn, const struct astra_stmt *s)
{
	char *a = squeezed(syn, s->a0, s->a1), *b = squeezed(syn, s->b0, s->b1), *c = squeezed(syn, s->c0, s->c1);
	char *r = xasprintf("%s;%s;%s", a, b, c);
	free(a);
	free(b);
	free(c);
	return r;
}

/* `M = fmaxf(M, X)` (either argument order): M's name and X; 0 when not. */
static int max_update(struct on *o, struct astra_stmt *s, char **m, struct astra_expr **x)
{
	struct astra_expr *e, *r;
	s = single(s);
	if (!s || s->kind != STMT_EXPR || !(e = astra_syn_expr(o->syn, s->a0, s->a1)) || e->kind != EX_ASSIGN ||
	    !astra_syn_is(o->syn, e->op, "=") || e->a->kind != EX_IDENT || e->a->t1 != e->a->t0 + 1)
		return 0;
	r = e->b;
	while (r->kind == EX_PAREN)
		r = r->a;
	if (r->kind != EX_CALL || r->a->kind != EX_IDENT || r->nr_args != 2 || !astra_syn_is(o->syn, r->a->t0, "fmaxf"))
		return 0;
	*m = astra_syn_tokstr(o->syn, e->a->t0);
	if (astra_syn_is_name(o->syn, r->args[0], *m))
		*x = r->args[1];
	else if (astra_syn_is_name(o->syn, r->args[1], *m))
		*x = r->args[0];
	else
		*x = NULL;
	if (!*x || astra_syn_mentions(o->syn, (*x)->t0, (*x)->t1, *m) || astra_facts_type(&o->f, e->a) != TY_FLOAT) {
		free(*m);
		*m = NULL;
		return 0;
	}
	return 1;
}

/* `S += EXP(X - M)` or `S = S + EXP(X - M)`: S's name, X and the exponential's name; 0 when not. */
static int sum_update(struct on *o, struct astra_stmt *s, const char *m, char **sum, struct astra_expr **x,
		      char **fn)
{
	struct astra_expr *e, *r, *d;
	s = single(s);
	if (!s || s->kind != STMT_EXPR || !(e = astra_syn_expr(o->syn, s->a0, s->a1)) || e->kind != EX_ASSIGN ||
	    e->a->kind != EX_IDENT || e->a->t1 != e->a->t0 + 1)
		return 0;
	*sum = astra_syn_tokstr(o->syn, e->a->t0);
	r = e->b;
	while (r->kind == EX_PAREN)
		r = r->a;
	if (astra_syn_is(o->syn, e->op, "=") && r->kind == EX_BINARY && astra_syn_is(o->syn, r->op, "+")) {
		if (astra_syn_is_name(o->syn, r->a, *sum))
			r = r->b;
		else if (astra_syn_is_name(o->syn, r->b, *sum))
			r = r->a;
		else
			r = NULL;
	} else if (!astra_syn_is(o->syn, e->op, "+=")) {
		r = NULL;
	}
	while (r && r->kind == EX_PAREN)
		r = r->a;
	if (!r || r->kind != EX_CALL || r->a->kind != EX_IDENT || r->nr_args != 1 ||
	    !(astra_syn_is(o->syn, r->a->t0, "expf") || astra_syn_is(o->syn, r->a->t0, "__expf")) ||
	    astra_facts_type(&o->f, e->a) != TY_FLOAT) {
		free(*sum);
		*sum = NULL;
		return 0;
	}
	d = r->args[0];
	while (d->kind == EX_PAREN)
		d = d->a;
	if (d->kind != EX_BINARY || !astra_syn_is(o->syn, d->op, "-") || !astra_syn_is_name(o->syn, d->b, m) ||
	    astra_syn_mentions(o->syn, d->a->t0, d->a->t1, *sum)) {
		free(*sum);
		*sum = NULL;
		return 0;
	}
	*x = d->a;
	*fn = astra_syn_tokstr(o->syn, r->a->t0);
	return 1;
}

/* `V = CALL(V);` with CALL a rules helper whose name ends in suffix: 'w' (warp), 'b' (block) or 0. */
static int combination(struct on *o, struct astra_stmt *s, const char *v, const char *what)
{
	struct astra_expr *e;
	char *callee, *p;
	int kind = 0;
	if (!s || s->kind != STMT_EXPR || !(e = astra_syn_expr(o->syn, s->a0, s->a1)) || e->kind != EX_ASSIGN ||
	    !astra_syn_is(o->syn, e->op, "=") || !astra_syn_is_name(o->syn, e->a, v) || e->b->kind != EX_CALL ||
	    e->b->a->kind != EX_IDENT || e->b->nr_args != 1 || !astra_syn_is_name(o->syn, e->b->args[0], v))
		return 0;
	callee = astra_syn_tokstr(o->syn, e->b->a->t0);
	if (!strncmp(callee, "astra_", 6) && (p = strstr(callee, "red_")) != NULL && p > callee &&
	    (p[-1] == 'w' || p[-1] == 'b') && p - 1 > callee && p[-2] == '_' && !strcmp(p + 4, what))
		kind = p[-1];
	free(callee);
	return kind;
}

/* Only `float S = 0;` and `if (LANE != 0) S = 0;` between the loops; the declaration's index, or -1. */
static long between(struct on *o, struct astra_stmt *blk, size_t from, size_t to, const char *m, const char *sum)
{
	size_t i;
	long decl = -1;
	for (i = from; i < to; i++) {
		struct astra_stmt *s = blk->kids[i];
		if (astra_syn_mentions(o->syn, s->t0, s->t1, m))
			return -1;
		if (s->kind == STMT_DECL) {
			struct astra_decl *d = NULL;
			long long z;
			size_t n = astra_syn_decls(o->syn, s->a0, s->a1, &d);
			char *name = n == 1 ? astra_syn_tokstr(o->syn, d[0].name) : NULL;
			int ok = name && !strcmp(name, sum) && d[0].init1 > d[0].init0 &&
				 ((astra_facts_const_int(&o->f, astra_syn_expr(o->syn, d[0].init0, d[0].init1), &z) == 0 && !z) ||
				  (d[0].init1 == d[0].init0 + 1 &&
				   (astra_syn_is(o->syn, d[0].init0, "0.0f") || astra_syn_is(o->syn, d[0].init0, "0.f") ||
				    astra_syn_is(o->syn, d[0].init0, "0.0"))));
			free(name);
			free(d);
			if (!ok)
				return -1;
			decl = (long)i;
			continue;
		}
		if (s->kind == STMT_IF && s->nr_kids == 1 && astra_syn_mentions(o->syn, s->t0, s->t1, sum) &&
		    single(s->kids[0])->kind == STMT_EXPR) {
			struct astra_stmt *t = single(s->kids[0]);
			if (t->a1 == t->a0 + 3 && astra_syn_is(o->syn, t->a0, sum) && astra_syn_is(o->syn, t->a0 + 1, "=") &&
			    astra_syn_is(o->syn, t->a0 + 2, "0"))
				continue;
		}
		return -1;
	}
	return decl;
}

static int visit_block(struct astra_stmt *blk, void *data)
{
	struct on *o = data;
	const struct astra_syn *syn = o->syn;
	size_t i;
	if (blk->kind != STMT_BLOCK)
		return 0;
	for (i = 0; i < blk->nr_kids; i++) {
		struct astra_stmt *l1 = blk->kids[i], *l2 = NULL, *c2 = NULL, *last;
		struct astra_expr *x1 = NULL, *x2 = NULL;
		char *m = NULL, *sum = NULL, *fn = NULL, *h1 = NULL, *h2 = NULL, *xa = NULL, *xb = NULL;
		size_t j, k1 = 0;
		int kind1 = 0, kind2 = 0;
		long decl;
		if (l1->kind != STMT_FOR || !max_update(o, l1->kids[0], &m, &x1))
			continue;
		j = i + 1;
		if (j < blk->nr_kids && (kind1 = combination(o, blk->kids[j], m, "fmaxf")) != 0)
			j++;
		k1 = j;
		/* the sum's loop: the next for statement */
		for (; j < blk->nr_kids && blk->kids[j]->kind != STMT_FOR; j++)
			;
		if (j >= blk->nr_kids)
			goto next;
		l2 = blk->kids[j];
		h1 = loop_header(syn, l1);
		h2 = loop_header(syn, l2);
		if (strcmp(h1, h2) || !sum_update(o, l2->kids[0], m, &sum, &x2, &fn)) {
			if (!strcmp(h1, h2)) {
				astra_buf_reset(&o->detail);
				astra_buf_adds(&o->detail, "the loop after the maximum's is not `s += expf(x - m)` over the same range");
			}
			goto next;
		}
		xa = squeezed(syn, x1->t0, x1->t1);
		xb = squeezed(syn, x2->t0, x2->t1);
		if (strcmp(xa, xb)) {
			astra_buf_reset(&o->detail);
			astra_buf_addf(&o->detail, "the sum's exponent reads %s, the maximum %s", xb, xa);
			goto next;
		}
		decl = between(o, blk, k1, j, m, sum);
		if (decl < 0) {
			astra_buf_reset(&o->detail);
			astra_buf_addf(&o->detail, "between the two loops there is more than `float %s = 0;`", sum);
			goto next;
		}
		if (j + 1 < blk->nr_kids && (kind2 = combination(o, blk->kids[j + 1], sum, "sum")) != 0)
			c2 = blk->kids[j + 1];
		if (kind1 != kind2) {
			astra_buf_reset(&o->detail);
			astra_buf_adds(&o->detail, "the maximum and the sum are not combined over the same threads");
			goto next;
		}
		last = c2 ? c2 : l2;
		{
			/*
			 * [statements between]  for (H) { online update }  [merge]
			 * replacing everything from the maximum's loop to the sum's
			 * combination.
			 */
			struct astra_buf b = ASTRA_BUF_INIT;
			char *ind = astra_rk_line_indent(o->rk, astra_syn_off(syn, l1->t0));
			char *x = astra_syn_text(syn, x1->t0, x1->t1);
			char *head = astra_syn_text(syn, l1->t0, l1->kids[0]->t0);
			size_t s;
			for (s = k1; s < j; s++) {
				char *t = astra_syn_text(syn, blk->kids[s]->t0, blk->kids[s]->t1);
				astra_buf_addf(&b, "%s\n%s", t, ind);
				free(t);
			}
			astra_buf_addf(&b,
				       "%s {\n"
				       "%s\t/* astra-cc rules: online softmax: the maximum and the sum in one pass */\n"
				       "%s\tconst float astra_x = %s;\n"
				       "%s\tif (astra_x > %s) {\n"
				       "%s\t\t%s = %s * %s(%s - astra_x) + 1.0f;\n"
				       "%s\t\t%s = astra_x;\n"
				       "%s\t} else {\n"
				       "%s\t\t%s += %s(astra_x - %s);\n"
				       "%s\t}\n"
				       "%s}",
				       head, ind, ind, x, ind, m, ind, sum, sum, fn, m, ind, m, ind, ind, sum, fn, m, ind, ind);
			if (kind1) {
				astra_buf_addf(&b, "\n%sastra_" ASTRA_SFX "_%conline(%s, %s);", ind, kind1, m, sum);
				o->helpers |= kind1 == 'w' ? HELPER_WONLINE : HELPER_BONLINE;
			}
			astra_syn_edit_owned(&o->edits, astra_syn_off(syn, l1->t0), astra_syn_end(syn, last->t1 - 1),
					      astra_buf_detach(&b, NULL));
			free(ind);
			free(x);
			free(head);
			o->count++;
			i = (size_t)(last == c2 ? j + 1 : j);
		}
	next:
		free(m);
		free(sum);
		free(fn);
		free(h1);
		free(h2);
		free(xa);
		free(xb);
	}
	return 0;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct on o;
	(void)arg;
	memset(&o, 0, sizeof(o));
	o.rk = rk;
	if (astra_facts_build(&o.f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	o.syn = &rk->syn;
	astra_syn_walk(rk->syn.body, visit_block, &o);
	astra_facts_release(&o.f);
	if (!o.count) {
		astra_syn_edits_release(&o.edits);
		if (o.detail.len)
			astra_buf_add(why, o.detail.buf, o.detail.len);
		else
			astra_buf_adds(why, "no row maximum `m = fmaxf(m, x)` followed by a sum `s += expf(x - m)` over the same loop");
		astra_buf_release(&o.detail);
		return 0;
	}
	astra_buf_release(&o.detail);
	if (astra_rk_edit(rk, &o.edits) < 0) {
		astra_syn_edits_release(&o.edits);
		return -1;
	}
	astra_syn_edits_release(&o.edits);
	rk->helpers |= o.helpers;
	return 1;
}

const struct astra_rule astra_rule_online_softmax = {
	.name = "online-softmax",
	.summary = "a row's maximum and sum of exponentials in one pass (rescaling the sum), pairs merged across threads",
	.flags = RULE_VARIANT,
	.stage = 12,
	.apply = apply,
};
