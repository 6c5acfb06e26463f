/*
 * planner.c - choosing the next round's rule combinations (see planner.h).
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/log.h"
#include "lib/util.h"
#include "rules/planner.h"
#include "rules/rule.h"

/* --------------------------------------------------------------- steps */

static void split_steps(const char *steps, struct astra_vec *v)
{
	const char *p = steps ? steps : "";
	while (*p) {
		size_t n = strcspn(p, ",");
		char *s = xstrndup(p, n), *a = s, *z;
		while (*a == ' ')
			a++;
		z = a + strlen(a);
		while (z > a && z[-1] == ' ')
			*--z = '\0';
		if (*a && astra_vec_find(v, a) < 0)
			astra_vec_push(v, a);
		free(s);
		p += n;
		if (*p)
			p++;
	}
}

static const struct astra_rule *rule_of(const char *step)
{
	size_t n = strcspn(step, "=");
	char *name = xstrndup(step, n);
	const struct astra_rule *r = astra_rules_find(name);
	free(name);
	return r;
}

static int step_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	const struct astra_rule *rx = rule_of(x), *ry = rule_of(y);
	int sx = rx ? rx->stage : 1000, sy = ry ? ry->stage : 1000;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return strcmp(x, y);
}

static char *join(struct astra_vec *v)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	if (v->nr)
		qsort(v->v, v->nr, sizeof(char *), step_cmp);
	for (i = 0; i < v->nr; i++)
		astra_buf_addf(&b, "%s%s", i ? "," : "", v->v[i]);
	return astra_buf_detach(&b, NULL);
}

char *astra_rules_normalize(const char *steps)
{
	struct astra_vec v = ASTRA_VEC_INIT;
	char *r;
	split_steps(steps, &v);
	r = join(&v);
	astra_vec_clear(&v);
	return r;
}

/* Do rules a and b exclude each other (one rewrites what the other does)? */
static int excludes(const struct astra_rule *a, const struct astra_rule *b)
{
	const char *lists[2], *other[2];
	int i;
	if (a == b)
		return 1; /* one argument per rule */
	lists[0] = a->excludes;
	other[0] = b->name;
	lists[1] = b->excludes;
	other[1] = a->name;
	for (i = 0; i < 2; i++) {
		const char *p = lists[i];
		size_t n = strlen(other[i]);
		while (p && *p) {
			size_t m = strcspn(p, ",");
			if (m == n && !memcmp(p, other[i], n))
				return 1;
			p += m;
			if (*p)
				p++;
		}
	}
	return 0;
}

/* Can step be added to the list v? */
static int compatible(struct astra_vec *v, const char *step)
{
	const struct astra_rule *r = rule_of(step);
	size_t i;
	if (!r)
		return 0;
	for (i = 0; i < v->nr; i++) {
		const struct astra_rule *o = rule_of(v->v[i]);
		if (o && excludes(r, o))
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------- history */

struct plan {
	const struct astra_kernel *k;
	int cc;
	const struct astra_rules_try *tries;
	size_t nr_tries;
	size_t max;
	struct astra_vec *out;
	size_t added;
	struct astra_vec seen;      /* normalized step lists tried or proposed */
	struct astra_vec texts;     /* texts tried or proposed */
	struct astra_vec banned;    /* steps that broke a candidate */
	struct astra_vec singles;   /* steps that apply to the original alone */
};

/* Did adding step to an accepted candidate (or to nothing) make it fail? */
static void find_banned(struct plan *p)
{
	size_t i, j, k;
	for (i = 0; i < p->nr_tries; i++) {
		struct astra_vec v = ASTRA_VEC_INIT;
		if (p->tries[i].ok)
			continue;
		split_steps(p->tries[i].steps, &v);
		for (k = 0; k < v.nr; k++) {
			struct astra_vec rest = ASTRA_VEC_INIT;
			char *r;
			int broke = v.nr == 1;
			for (j = 0; j < v.nr; j++)
				if (j != k)
					astra_vec_push(&rest, v.v[j]);
			r = join(&rest);
			for (j = 0; j < p->nr_tries && !broke; j++) {
				char *n;
				if (!p->tries[j].ok)
					continue;
				n = astra_rules_normalize(p->tries[j].steps);
				broke = !strcmp(n, r);
				free(n);
			}
			for (j = 0; j < p->nr_tries && broke; j++) {
				/* a step that is part of a verified candidate is not to blame */
				struct astra_vec w = ASTRA_VEC_INIT;
				if (p->tries[j].ok) {
					split_steps(p->tries[j].steps, &w);
					if (astra_vec_find(&w, v.v[k]) >= 0)
						broke = 0;
				}
				astra_vec_clear(&w);
			}
			if (broke && astra_vec_find(&p->banned, v.v[k]) < 0) {
				astra_trace(ASTRA_TRACE_LOOP, "rules: %s dropped: [%s] failed", v.v[k], p->tries[i].steps);
				astra_vec_push(&p->banned, v.v[k]);
			}
			free(r);
			astra_vec_clear(&rest);
		}
		astra_vec_clear(&v);
	}
}

static int uses_banned(struct plan *p, struct astra_vec *v)
{
	size_t i;
	for (i = 0; i < v->nr; i++)
		if (astra_vec_find(&p->banned, v->v[i]) >= 0)
			return 1;
	return 0;
}

/* Propose the steps in v (any order) if new and buildable. */
static void propose(struct plan *p, struct astra_vec *v, const char *why)
{
	struct astra_variant var;
	struct astra_buf err = ASTRA_BUF_INIT;
	char *s;
	if (p->added >= p->max || !v->nr || uses_banned(p, v))
		return;
	s = join(v);
	if (astra_vec_find(&p->seen, s) >= 0) {
		free(s);
		return;
	}
	astra_vec_push(&p->seen, s);
	if (astra_rules_build(p->k, p->cc, s, &var, &err) != 1) {
		astra_trace(ASTRA_TRACE_LOOP, "rules: [%s] does not build: %s", s, err.buf);
		astra_buf_release(&err);
		free(s);
		return;
	}
	astra_buf_release(&err);
	if (astra_vec_find(&p->texts, var.text) >= 0) {
		astra_trace(ASTRA_TRACE_LOOP, "rules: [%s] gives a text tried already", s);
	} else {
		astra_vec_push(&p->texts, var.text);
		astra_vec_push(p->out, s);
		p->added++;
		astra_trace(ASTRA_TRACE_LOOP, "rules: propose [%s]: %s", s, why);
	}
	free(var.text);
	free(var.grid);
	free(var.block);
	free(var.shmem);
	free(var.origin);
	free(s);
}

/* Does step apply to the state rk (a scratch copy is used)? */
static int applies(struct astra_rk *rk, const char *step)
{
	struct astra_rk w;
	struct astra_buf why = ASTRA_BUF_INIT;
	int r;
	astra_rk_copy(&w, rk);
	r = astra_rk_step(&w, step, &why) == 1;
	astra_rk_release(&w);
	astra_buf_release(&why);
	return r;
}

/*
 * A pipeline: every non-sweep rule in stage order that applies on top of
 * the ones before; `prefer` wins over the rules it excludes, `skip` is left
 * out.
 */
static void pipeline(struct plan *p, const char *prefer, const char *skip, struct astra_vec *out)
{
	struct astra_rk rk;
	const struct astra_rule **order = xmalloc(astra_nr_rules * sizeof(*order));
	const struct astra_rule *pref = prefer ? astra_rules_find(prefer) : NULL;
	size_t i, j;
	for (i = 0; i < astra_nr_rules; i++)
		order[i] = astra_rules[i];
	/* stable sort by stage */
	for (i = 1; i < astra_nr_rules; i++)
		for (j = i; j > 0 && order[j - 1]->stage > order[j]->stage; j--) {
			const struct astra_rule *t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	astra_rk_init(&rk, p->k, p->cc);
	for (i = 0; i < astra_nr_rules; i++) {
		const struct astra_rule *r = order[i];
		struct astra_buf why = ASTRA_BUF_INIT;
		if ((r->flags & RULE_SWEEP) || (skip && !strcmp(r->name, skip)) ||
		    astra_vec_find(&p->banned, r->name) >= 0 || !compatible(out, r->name) ||
		    ((r->flags & RULE_VARIANT) && r != pref))
			continue;
		if (pref && r != pref && excludes(r, pref) && applies(&rk, pref->name))
			continue;
		if (astra_rk_step(&rk, r->name, &why) == 1)
			astra_vec_push(out, r->name);
		astra_buf_release(&why);
	}
	astra_rk_release(&rk);
	free(order);
}

/*
 * Each value of each sweep that applies on top of the steps `base`, as
 * base plus that value (replacing base's value of the same sweep).
 */
static void propose_sweeps(struct plan *p, const struct astra_vec *base, const char *reason)
{
	struct astra_vec v = ASTRA_VEC_INIT;
	struct astra_rk rk;
	struct astra_buf why = ASTRA_BUF_INIT;
	size_t i, j, k;
	astra_rk_init(&rk, p->k, p->cc);
	for (i = 0; i < base->nr; i++)
		astra_rk_step(&rk, base->v[i], &why);
	for (i = 0; i < astra_nr_rules; i++) {
		const struct astra_rule *r = astra_rules[i];
		struct astra_vec args = ASTRA_VEC_INIT;
		if (!(r->flags & RULE_SWEEP) || !r->args)
			continue;
		r->args(&rk, &args);
		for (j = 0; j < args.nr; j++) {
			for (k = 0; k < base->nr; k++)
				if (rule_of(base->v[k]) != r)
					astra_vec_push(&v, base->v[k]);
			astra_vec_push_owned(&v, xasprintf("%s=%s", r->name, args.v[j]));
			propose(p, &v, reason);
			astra_vec_clear(&v);
		}
		astra_vec_clear(&args);
	}
	astra_rk_release(&rk);
	astra_buf_release(&why);
}

/* The pipeline (with `prefer`) plus each value of each sweep that applies on top of it. */
static void sweeps_on(struct plan *p, const char *prefer)
{
	struct astra_vec v = ASTRA_VEC_INIT;
	pipeline(p, prefer, NULL, &v);
	propose_sweeps(p, &v, "a pipeline with a sweep value");
	astra_vec_clear(&v);
}

static void first_round(struct plan *p)
{
	size_t i;
	const char *alts[64];   /* every rule with excludes, then the variants (17 today; 16 dropped the last) */
	size_t nr_alts = 0;
	struct astra_vec v = ASTRA_VEC_INIT;

	/* the default pipeline, then one pipeline per alternative rule */
	pipeline(p, NULL, NULL, &v);
	propose(p, &v, "every rule that applies, in order");
	astra_vec_clear(&v);
	for (i = 0; i < astra_nr_rules && nr_alts < ARRAY_SIZE(alts); i++)
		if (astra_rules[i]->excludes && !(astra_rules[i]->flags & RULE_SWEEP))
			alts[nr_alts++] = astra_rules[i]->name;
	for (i = 0; i < astra_nr_rules && nr_alts < ARRAY_SIZE(alts); i++)
		if (astra_rules[i]->flags & RULE_VARIANT)
			alts[nr_alts++] = astra_rules[i]->name;
	for (i = 0; i < nr_alts; i++) {
		pipeline(p, alts[i], NULL, &v);
		propose(p, &v, "the pipeline with an alternative rule");
		astra_vec_clear(&v);
	}
	pipeline(p, NULL, "fastmath", &v);
	propose(p, &v, "the pipeline without fast math (exact division and exp)");
	astra_vec_clear(&v);
	/*
	 * Sweep values on the pipelines: the loop judges a whole round in one
	 * test program and stops after a round without gain, so the first
	 * round is wide.
	 */
	sweeps_on(p, NULL);
	for (i = 0; i < nr_alts; i++)
		if (!(astra_rules_find(alts[i])->flags & RULE_VARIANT))
			sweeps_on(p, alts[i]); /* a variant's sweeps wait for a later round */
	/* each rule alone, so later rounds know what each one does */
	for (i = 0; i < p->singles.nr; i++) {
		astra_vec_push(&v, p->singles.v[i]);
		propose(p, &v, "alone");
		astra_vec_clear(&v);
	}
}

/* The fastest verified candidate, or -1. */
static long best_try(struct plan *p)
{
	size_t i;
	long best = -1;
	for (i = 0; i < p->nr_tries; i++)
		if (p->tries[i].ok && p->tries[i].speedup > 0 &&
		    (best < 0 || p->tries[i].speedup > p->tries[best].speedup))
			best = (long)i;
	return best;
}

static void later_round(struct plan *p)
{
	long b = best_try(p);
	struct astra_vec base = ASTRA_VEC_INIT, v = ASTRA_VEC_INIT;
	size_t i, j;

	if (b >= 0)
		split_steps(p->tries[b].steps, &base);
	astra_trace(ASTRA_TRACE_LOOP, "rules: building on [%s] (%.2fx)", b >= 0 ? p->tries[b].steps : "the original",
		    b >= 0 ? p->tries[b].speedup : 1.0);

	/* one more rule */
	for (i = 0; i < astra_nr_rules; i++) {
		const struct astra_rule *r = astra_rules[i];
		if ((r->flags & RULE_SWEEP) || astra_vec_find(&base, r->name) >= 0 || !compatible(&base, r->name))
			continue;
		astra_vec_pushv(&v, base.v, base.nr);
		astra_vec_push(&v, r->name);
		propose(p, &v, "the best so far with one more rule");
		astra_vec_clear(&v);
	}
	/* one rule swapped for a rule it excludes */
	for (i = 0; i < base.nr; i++) {
		const struct astra_rule *r = rule_of(base.v[i]);
		for (j = 0; r && j < astra_nr_rules; j++) {
			const struct astra_rule *o = astra_rules[j];
			size_t k;
			if (o == r || (o->flags & RULE_SWEEP) || !excludes(r, o))
				continue;
			for (k = 0; k < base.nr; k++)
				if (k != i)
					astra_vec_push(&v, base.v[k]);
			if (compatible(&v, o->name)) {
				astra_vec_push(&v, o->name);
				propose(p, &v, "the best so far with a rule swapped for its alternative");
			}
			astra_vec_clear(&v);
		}
	}
	/* sweeps on top of the best */
	propose_sweeps(p, &base, "a sweep value on top of the best so far");
	/* without each of its rules: a rule may cost more than it brings */
	for (i = 0; base.nr > 1 && i < base.nr; i++) {
		for (j = 0; j < base.nr; j++)
			if (j != i)
				astra_vec_push(&v, base.v[j]);
		propose(p, &v, "the best so far without one of its rules");
		astra_vec_clear(&v);
	}
	/* what the first round had no room for */
	first_round(p);
	astra_vec_clear(&base);
}

size_t astra_rules_plan(const struct astra_kernel *k, int cc, const struct astra_rules_try *tries, size_t nr_tries,
			size_t max, struct astra_vec *out)
{
	struct plan p;
	struct astra_rk rk;
	size_t i;

	memset(&p, 0, sizeof(p));
	p.k = k;
	p.cc = cc;
	p.tries = tries;
	p.nr_tries = nr_tries;
	p.max = max;
	p.out = out;
	/*
	 * What was tried is known by its text: the same steps may give another
	 * text in a later round (the target's compute capability becomes known
	 * after the first run).  Without a text, the steps stand for it.
	 */
	for (i = 0; i < nr_tries; i++) {
		if (tries[i].text)
			astra_vec_push(&p.texts, tries[i].text);
		else
			astra_vec_push_owned(&p.seen, astra_rules_normalize(tries[i].steps));
	}
	find_banned(&p);
	astra_rk_init(&rk, k, cc);
	for (i = 0; i < astra_nr_rules; i++)
		if (!(astra_rules[i]->flags & RULE_SWEEP) && applies(&rk, astra_rules[i]->name))
			astra_vec_push(&p.singles, astra_rules[i]->name);
	astra_rk_release(&rk);
	if (!nr_tries)
		first_round(&p);
	else
		later_round(&p);
	astra_vec_clear(&p.seen);
	astra_vec_clear(&p.texts);
	astra_vec_clear(&p.banned);
	astra_vec_clear(&p.singles);
	return p.added;
}
