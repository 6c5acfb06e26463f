/*
 * r-unroll.c - rule "unroll": `#pragma unroll` on small loops whose trip
 * count the compiler knows.
 *
 * A loop qualifies when its header is `for (int k = A; k < B; ++k)` (or
 * <=, k++, k += S) with A and B integer literals (trip count at most 32), or
 * B a template non-type parameter, a tunable or a const local initialized
 * from a literal; its counter is not changed in the body; and no
 * `#pragma unroll` is in front of it already.  Unrolling changes no result:
 * the iterations run in the same order.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"
#include "rules/rule.h"

#define MAX_TRIP 32

struct un {
	struct astra_facts *f;
	struct astra_rk *rk;
	struct astra_syn_edits *edits;
	int count;
	struct astra_buf *why;
};

static int literal(const struct astra_syn *syn, size_t t, long *v)
{
	char *s, *end;
	int ok;
	if (t >= syn->nr_toks || syn->toks[t].kind != SYN_NUMBER)
		return 0;
	s = astra_syn_tokstr(syn, t);
	*v = strtol(s, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	ok = !*end;
	free(s);
	return ok;
}

/* Is the bound at tokens [t0, t1) a compile-time constant? *v gets a literal's value, or -1. */
static int const_bound(struct un *u, size_t t0, size_t t1, long *v)
{
	const struct astra_syn *syn = u->f->syn;
	const struct astra_local *l;
	char *name;
	size_t i;
	int ok = 0;
	*v = -1;
	if (t1 != t0 + 1)
		return 0;
	if (literal(syn, t0, v))
		return 1;
	if (!astra_syn_is_ident(syn, t0))
		return 0;
	name = astra_syn_tokstr(syn, t0);
	if (astra_rk_is_tmpl_param(u->rk, name))
		ok = 1;
	for (i = 0; i < u->rk->k->pragma.nr_tunables; i++)
		if (!strcmp(u->rk->k->pragma.tunables[i].name, name))
			ok = 1;
	l = astra_facts_local(u->f, name, strlen(name));
	if (l && l->nr_decls == 1 && !l->assigned && l->d.init1 == l->d.init0 + 1 &&
	    astra_syn_find(syn, l->d.ty0, l->d.ty1, "const") != (size_t)-1 && literal(syn, l->d.init0, v))
		ok = 1;
	free(name);
	return ok;
}

/* 1: a #pragma unroll is right in front of s, or s is not directly in a block; 0: free to add one. */
static int preceded_by_unroll(const struct astra_syn *syn, struct astra_stmt *s)
{
	struct astra_stmt *p = s->parent;
	size_t i;
	char *t;
	int r;
	if (!p || p->kind != STMT_BLOCK)
		return 1;
	for (i = 0; i < p->nr_kids; i++)
		if (p->kids[i] == s)
			break;
	if (i == 0 || p->kids[i - 1]->kind != STMT_PP)
		return 0;
	t = astra_syn_tokstr(syn, p->kids[i - 1]->t0);
	r = strstr(t, "unroll") != NULL;
	free(t);
	return r;
}

static int visit(struct astra_stmt *s, void *data)
{
	struct un *u = data;
	const struct astra_syn *syn = u->f->syn;
	size_t v, b0 = s->b0, b1 = s->b1;
	long lo = 0, hi, step = 1;
	char *name;

	if (s->kind != STMT_FOR || preceded_by_unroll(syn, s))
		return 0;
	/* init: [type] k = A */
	v = astra_syn_find(syn, s->a0, s->a1, "=");
	if (v == (size_t)-1 || v == s->a0 || !astra_syn_is_ident(syn, v - 1) || v + 2 != s->a1 ||
	    !literal(syn, v + 1, &lo))
		return 0;
	v--;
	name = astra_syn_tokstr(syn, v);
	/* cond: k < B / k <= B */
	if (!(b1 >= b0 + 3 && astra_syn_is(syn, b0, name) &&
	      (astra_syn_is(syn, b0 + 1, "<") || astra_syn_is(syn, b0 + 1, "<=")) &&
	      const_bound(u, b0 + 2, b1, &hi))) {
		free(name);
		return 0;
	}
	if (astra_syn_is(syn, b0 + 1, "<=") && hi >= 0)
		hi++;
	/* incr: ++k, k++, k += S */
	if (!((s->c1 == s->c0 + 2 && ((astra_syn_is(syn, s->c0, "++") && astra_syn_is(syn, s->c0 + 1, name)) ||
				      (astra_syn_is(syn, s->c0, name) && astra_syn_is(syn, s->c0 + 1, "++")))) ||
	      (s->c1 == s->c0 + 3 && astra_syn_is(syn, s->c0, name) && astra_syn_is(syn, s->c0 + 1, "+=") &&
	       literal(syn, s->c0 + 2, &step) && step > 0))) {
		free(name);
		return 0;
	}
	if (astra_facts_assigned_in(u->f, name, strlen(name), s->kids[0]->t0, s->kids[0]->t1)) {
		free(name);
		return 0;
	}
	free(name);
	if (hi >= 0 && (hi - lo + step - 1) / step > MAX_TRIP)
		return 0;
	astra_rk_edit_line_before(u->rk, astra_syn_off(syn, s->t0), "#pragma unroll", u->edits);
	u->count++;
	return 0;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_facts f;
	struct astra_syn_edits edits = { NULL, 0, 0 };
	struct un u;
	(void)arg;
	if (astra_facts_build(&f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	u.f = &f;
	u.rk = rk;
	u.edits = &edits;
	u.count = 0;
	u.why = why;
	astra_syn_walk(rk->syn.body, visit, &u);
	astra_facts_release(&f);
	if (!u.count) {
		astra_syn_edits_release(&edits);
		astra_buf_adds(why, "no loop with a compile-time trip count (at most 32, or a template "
				    "parameter/tunable bound) lacks #pragma unroll");
		return 0;
	}
	if (astra_rk_edit(rk, &edits) < 0) {
		astra_syn_edits_release(&edits);
		return -1;
	}
	astra_syn_edits_release(&edits);
	return 1;
}

const struct astra_rule astra_rule_unroll = {
	.name = "unroll",
	.summary = "#pragma unroll on loops with a small compile-time trip count",
	.stage = 70,
	.apply = apply,
};
