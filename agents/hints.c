/*
 * hints.c - what a user could tell astra-cc that no run shows (hints.h).
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "agents/hints.h"

void astra_hints_add(struct astra_hints *h, const struct astra_kernel *k, const struct astra_verify_result *vr)
{
	size_t i, j;
	for (i = 0; i < vr->nr_cands; i++) {
		const struct astra_cand_result *c = &vr->cands[i];
		struct astra_hint_output *o = NULL;
		if (c->verdict != ASTRA_CAND_REJECTED || !c->mismatch_output || !(c->mismatch_ratio > 1) ||
		    c->mismatch_ratio > ASTRA_HINT_NARROW || !(c->mismatch_rtol > 0 || c->mismatch_atol > 0) ||
		    astra_pragma_tolerance(&k->pragma, c->mismatch_output))
			continue;
		for (j = 0; j < h->nr && !o; j++)
			if (!strcmp(h->out[j].name, c->mismatch_output))
				o = &h->out[j];
		if (!o) {
			ALLOC_GROW(h->out, h->nr + 1, h->alloc);
			o = &h->out[h->nr++];
			memset(o, 0, sizeof(*o));
			o->name = xstrdup(c->mismatch_output);
		}
		o->candidates++;
		/* Instantiations differ in tolerance (__half, bf16): keep the case that needs the widest. */
		if (c->mismatch_ratio * fmax(c->mismatch_rtol, c->mismatch_atol) > o->ratio * fmax(o->rtol, o->atol)) {
			o->ratio = c->mismatch_ratio;
			o->rtol = c->mismatch_rtol;
			o->atol = c->mismatch_atol;
		}
	}
}

/* v as the pragma would say it: "1e-4", "5e-6", "0.02". */
static void say_num(char *dst, size_t n, double v)
{
	int e;
	double m;
	if (!(v > 0)) {
		snprintf(dst, n, "0");
		return;
	}
	e = (int)floor(log10(v) + 1e-9);
	m = v / pow(10, e);
	if (e >= -2 && e <= 2)
		snprintf(dst, n, "%.3g", v);
	else
		snprintf(dst, n, "%.3ge%d", m, e);
}

/* The clause that would have o's candidates tested again. */
static char *clause(const struct astra_hint_output *o)
{
	static const double steps[] = { 2, 5, 10, 20, 50 };
	double f = steps[ARRAY_SIZE(steps) - 1];
	char r1[32], a1[32];
	size_t s;
	for (s = 0; s < ARRAY_SIZE(steps); s++)
		if (steps[s] >= 2 * o->ratio) {
			f = steps[s];
			break;
		}
	say_num(r1, sizeof(r1), o->rtol * f);
	say_num(a1, sizeof(a1), o->atol * f);
	return xasprintf("#pragma astra tolerance(%s: rtol=%s, atol=%s)", o->name, r1, a1);
}

size_t astra_hints_text(const struct astra_hints *h, struct astra_vec *lines, struct astra_vec *clauses)
{
	size_t i;
	for (i = 0; i < h->nr; i++) {
		const struct astra_hint_output *o = &h->out[i];
		char r0[32], a0[32], *c = clause(o);
		say_num(r0, sizeof(r0), o->rtol);
		say_num(a0, sizeof(a0), o->atol);
		astra_vec_pushf(lines,
				"%zu candidate%s rejected only because `%s` differs from the original's by up to %.2f "
				"times its default tolerance (rtol=%s, atol=%s x rms), as a sum taken in another order "
				"can; if the application accepts that, `%s` has them verified again",
				o->candidates, o->candidates == 1 ? " was" : "s were", o->name, o->ratio, r0, a0, c);
		if (clauses)
			astra_vec_push_owned(clauses, c);
		else
			free(c);
	}
	return h->nr;
}

void astra_hints_release(struct astra_hints *h)
{
	size_t i;
	for (i = 0; i < h->nr; i++)
		free(h->out[i].name);
	free(h->out);
	h->out = NULL;
	h->nr = h->alloc = 0;
}
