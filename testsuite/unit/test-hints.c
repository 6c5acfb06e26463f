/*
 * Unit tests for agents/hints.c: which rejected candidates make a
 * tolerance hint (a mismatch, a little beyond a default tolerance, on an
 * output the pragma says nothing about), and the clause it suggests.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "agents/hints.h"
#include "testsuite/unit/unit.h"

#define MAXC 8

static struct astra_cand_result cands[MAXC];

/* Candidate i: rejected by check, on output at ratio times the tolerance (rtol, atol). */
static void cand(size_t i, const char *check, const char *output, double ratio, double rtol, double atol)
{
	struct astra_cand_result *c = &cands[i];
	memset(c, 0, sizeof(*c));
	c->verdict = check ? ASTRA_CAND_REJECTED : ASTRA_CAND_ACCEPTED;
	c->check = check;
	if (output) {
		c->mismatch_output = (char *)output;
		c->mismatch_ratio = ratio;
		c->mismatch_rtol = rtol;
		c->mismatch_atol = atol;
	}
}

static void add(struct astra_hints *h, const struct astra_kernel *k, size_t n)
{
	struct astra_verify_result vr;
	memset(&vr, 0, sizeof(vr));
	vr.ran = 1;
	vr.cands = cands;
	vr.nr_cands = n;
	astra_hints_add(h, k, &vr);
}

/* The hints' lines, "|"-joined; "" for none. */
static char *text(const struct astra_hints *h)
{
	struct astra_vec v = ASTRA_VEC_INIT;
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	astra_hints_text(h, &v, NULL);
	for (i = 0; i < v.nr; i++)
		astra_buf_addf(&b, "%s%s", i ? "|" : "", v.v[i]);
	astra_vec_clear(&v);
	return b.buf ? astra_buf_detach(&b, NULL) : xstrdup("");
}

int main(void)
{
	struct astra_kernel k;
	struct astra_tolerance tol;
	struct astra_hints h = ASTRA_HINTS_INIT;
	char *t;

	memset(&k, 0, sizeof(k));
	k.name = (char *)"softmax";

	/* 1. Two rounds: three narrow mismatches on `out` make one hint, the largest ratio named. */
	cand(0, "mismatch", "out", 1.55, 2e-5, 2e-5);
	cand(1, "mismatch", "out", 1.2, 2e-5, 2e-5);
	cand(2, NULL, NULL, 0, 0, 0);
	add(&h, &k, 3);
	cand(0, "mismatch", "out", 1.4, 2e-5, 2e-5);
	add(&h, &k, 1);
	t = text(&h);
	CHECK(strstr(t, "3 candidates were rejected only because `out` differs"));
	CHECK(strstr(t, "up to 1.55 times its default tolerance (rtol=2e-5, atol=2e-5 x rms)"));
	/* 2 x 1.55 = 3.1: five times the tolerance */
	CHECK(strstr(t, "`#pragma astra tolerance(out: rtol=1e-4, atol=1e-4)`"));
	CHECK(!strchr(t, '|'));
	free(t);
	astra_hints_release(&h);

	/* ... and the clause alone, for the warmup's JSON row. */
	cand(0, "mismatch", "out", 1.55, 2e-5, 2e-5);
	add(&h, &k, 1);
	{
		struct astra_vec lines = ASTRA_VEC_INIT, clauses = ASTRA_VEC_INIT;
		CHECK_INT(astra_hints_text(&h, &lines, &clauses), 1);
		CHECK_INT(clauses.nr, 1);
		if (clauses.nr)
			CHECK_STR(clauses.v[0], "#pragma astra tolerance(out: rtol=1e-4, atol=1e-4)");
		astra_vec_clear(&lines);
		astra_vec_clear(&clauses);
	}
	astra_hints_release(&h);

	/* 2. Not hints: beyond ASTRA_HINT_NARROW, within the tolerance, other checks, exact outputs. */
	cand(0, "mismatch", "out", 40, 2e-5, 2e-5);
	cand(1, "mismatch", "out", 1.0, 2e-5, 2e-5);
	cand(2, "unwritten", NULL, 0, 0, 0);
	cand(3, "mismatch", "idx", 2, 0, 0);
	cand(4, NULL, "out", 2, 2e-5, 2e-5); /* accepted: whatever it says */
	add(&h, &k, 5);
	t = text(&h);
	CHECK_STR(t, "");
	free(t);
	astra_hints_release(&h);

	/* 3. Two outputs, two lines; the factor follows the ratio (2 x 9 = 18: twenty). */
	cand(0, "mismatch", "out", 9, 1e-3, 1e-3);
	cand(1, "mismatch", "lse", 1.01, 2e-5, 0);
	add(&h, &k, 2);
	t = text(&h);
	CHECK(strstr(t, "1 candidate was rejected only because `out`"));
	CHECK(strstr(t, "tolerance(out: rtol=0.02, atol=0.02)"));
	CHECK(strstr(t, "|1 candidate was rejected only because `lse`"));
	CHECK(strstr(t, "tolerance(lse: rtol=1e-4, atol=0)"));
	free(t);
	astra_hints_release(&h);

	/*
	 * 4. The output's instantiations have different default tolerances
	 * (__half 5e-3, bf16 2e-2): the clause covers the one that needs the
	 * widest, 2 x 2e-2, not the first seen times the largest ratio (2.5e-2).
	 */
	cand(0, "mismatch", "out", 1.2, 5e-3, 5e-3);
	cand(1, "mismatch", "out", 2, 2e-2, 2e-2);
	cand(2, "mismatch", "out", 3, 1e-4, 1e-4);
	add(&h, &k, 3);
	t = text(&h);
	CHECK(strstr(t, "3 candidates were rejected only because `out`"));
	CHECK(strstr(t, "up to 2.00 times its default tolerance (rtol=0.02, atol=0.02 x rms)"));
	CHECK(strstr(t, "tolerance(out: rtol=0.1, atol=0.1)"));
	free(t);
	astra_hints_release(&h);

	/* 5. The pragma gives `out` a tolerance (by name, then for every output): the user has said. */
	memset(&tol, 0, sizeof(tol));
	tol.name = (char *)"out";
	tol.rtol = 1e-5;
	tol.atol = -1;
	k.pragma.tolerances = &tol;
	k.pragma.nr_tolerances = 1;
	cand(0, "mismatch", "out", 1.5, 1e-5, 2e-5);
	cand(1, "mismatch", "lse", 1.5, 2e-5, 2e-5);
	add(&h, &k, 2);
	t = text(&h);
	CHECK(!strstr(t, "`out`"));
	CHECK(strstr(t, "`lse`"));
	free(t);
	astra_hints_release(&h);
	tol.name = NULL;
	add(&h, &k, 2);
	t = text(&h);
	CHECK_STR(t, "");
	free(t);
	astra_hints_release(&h);

	return unit_done();
}
