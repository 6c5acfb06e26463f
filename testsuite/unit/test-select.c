/*
 * Unit tests for agents/select.c: given every version's timings at every
 * case (medians and quartiles), the set of variants a kernel keeps and the
 * version that runs at each case.  The figures are the shape of what the
 * H100 showed for a silu_and_mul written as the Astra paper's starting
 * kernel: vectorized code 2.27x at the largest shape and 1.5 us slower at
 * a 3 x 1001 one; fast math a few percent everywhere.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agents/select.h"
#include "testsuite/unit/unit.h"

#define MAXV 6
#define MAXC 8

/* A timing with a relative half-spread of q around median m. */
static struct astra_timing t(double m, double q)
{
	struct astra_timing r = { m, m * (1 - q), m * (1 + q), m * (1 - q), 100 };
	return r;
}

struct table {
	size_t nc, nv, np;
	struct astra_timing tim[MAXV * MAXC];
	double values[MAXC * 2];
	double bytes[MAXC];
};

static void set(struct table *tb, size_t v, size_t c, double m, double q)
{
	tb->tim[v * tb->nc + c] = t(m, q);
}

static int run(const struct table *tb, struct astra_select_result *r)
{
	struct astra_select_input in = { tb->nc, tb->nv, tb->tim, tb->np, tb->values, tb->bytes };
	return astra_select(&in, r);
}

/* silu_and_mul shapes (tokens, d), largest first. */
static const double silu_shapes[5][2] = { { 2048, 14336 }, { 128, 11008 }, { 7, 5120 }, { 1, 4096 }, { 3, 1001 } };

static void silu_table(struct table *tb)
{
	size_t c;
	memset(tb, 0, sizeof(*tb));
	tb->nc = 5;
	tb->nv = 3; /* original, fastmath, vectorized */
	tb->np = 2;
	for (c = 0; c < 5; c++) {
		tb->values[c * 2] = silu_shapes[c][0];
		tb->values[c * 2 + 1] = silu_shapes[c][1];
		tb->bytes[c] = silu_shapes[c][0] * silu_shapes[c][1] * 6;
	}
	/* the original */
	set(tb, 0, 0, 114.7, 0.005);
	set(tb, 0, 1, 9.8, 0.01);
	set(tb, 0, 2, 4.6, 0.01);
	set(tb, 0, 3, 4.3, 0.01);
	set(tb, 0, 4, 4.35, 0.01);
	/* fastmath: 5 % at the large shapes, a tie at the small ones */
	set(tb, 1, 0, 109.0, 0.005);
	set(tb, 1, 1, 9.3, 0.01);
	set(tb, 1, 2, 4.55, 0.01);
	set(tb, 1, 3, 4.3, 0.01);
	set(tb, 1, 4, 4.4, 0.01);
	/* vectorized: 2.27x at the largest, slower at 3 x 1001 */
	set(tb, 2, 0, 50.5, 0.005);
	set(tb, 2, 1, 6.1, 0.01);
	set(tb, 2, 2, 4.5, 0.01);
	set(tb, 2, 3, 4.3, 0.01);
	set(tb, 2, 4, 5.86, 0.01);
}

int main(void)
{
	struct table tb;
	struct astra_select_result r;
	size_t c;

	/*
	 * 1. The case: vectorized wins the large shapes, loses the
	 * tiny odd one to the original.  Kept: the vectorized variant alone,
	 * with the original at 3 x 1001 (one variant, not two: fastmath is
	 * not needed anywhere once the original covers the small shape).
	 */
	silu_table(&tb);
	CHECK_INT(run(&tb, &r), 0);
	CHECK_INT(r.nr_kept, 1);
	CHECK_INT(r.kept[0], 2);
	CHECK_INT(r.dispatch, 1);
	CHECK_INT(r.uses_original, 1);
	CHECK_INT(r.choice[0], 2);
	CHECK_INT(r.choice[1], 2);
	CHECK_INT(r.choice[4], 0);
	/* Where both tie, the lower time runs: 4.5 < 4.6 at 7 x 5120; 4.3 = 4.3 at 1 x 4096: the original. */
	CHECK_INT(r.choice[2], 2);
	CHECK_INT(r.choice[3], 0);
	CHECK_INT(r.largest, 0);
	CHECK(fabs(r.speedup_largest - 114.7 / 50.5) < 1e-9);
	CHECK(fabs(r.speedup - exp((log(114.7 / 50.5) + log(9.8 / 6.1) + log(4.6 / 4.5)) / 5)) < 1e-9);
	CHECK_INT(r.nr_points, 5);
	astra_select_result_release(&r);

	/*
	 * 2. The vectorized variant no longer loses at 3 x 1001 (within the
	 * noise there): it is best everywhere and kept alone, no dispatch,
	 * even where the original ties it.
	 */
	silu_table(&tb);
	set(&tb, 2, 4, 4.45, 0.01);
	CHECK_INT(run(&tb, &r), 0);
	CHECK_INT(r.nr_kept, 1);
	CHECK_INT(r.kept[0], 2);
	CHECK_INT(r.dispatch, 0);
	CHECK_INT(r.uses_original, 0);
	for (c = 0; c < 5; c++)
		CHECK_INT(r.choice[c], 2);
	astra_select_result_release(&r);

	/*
	 * 3. A second vectorized variant that is the one best at the tiny
	 * shapes beyond the noise (the original is slower there): two
	 * variants, no original.
	 */
	silu_table(&tb);
	tb.nv = 4;
	for (c = 0; c < 5; c++)
		tb.tim[3 * tb.nc + c] = tb.tim[2 * tb.nc + c];
	set(&tb, 3, 0, 70.0, 0.005);  /* beaten by 2 at the large shapes */
	set(&tb, 3, 1, 8.0, 0.01);
	set(&tb, 3, 4, 3.2, 0.01);    /* 1.15 us faster than the original at 3 x 1001 */
	set(&tb, 3, 3, 3.3, 0.01);
	CHECK_INT(run(&tb, &r), 0);
	CHECK_INT(r.nr_kept, 2);
	CHECK_INT(r.kept[0], 2);
	CHECK_INT(r.kept[1], 3);
	CHECK_INT(r.uses_original, 0);
	CHECK_INT(r.choice[0], 2);
	CHECK_INT(r.choice[4], 3);
	CHECK_INT(r.choice[3], 3);
	astra_select_result_release(&r);

	/* 4. Nothing beats the original beyond the noise (2 % everywhere): nothing kept. */
	silu_table(&tb);
	tb.nv = 2;
	for (c = 0; c < 5; c++)
		set(&tb, 1, c, tb.tim[c].median * 0.98, 0.005);
	CHECK_INT(run(&tb, &r), 0);
	CHECK_INT(r.nr_kept, 0);
	CHECK_INT(r.dispatch, 0);
	for (c = 0; c < 5; c++)
		CHECK_INT(r.choice[c], 0);
	CHECK(r.speedup == 1.0);
	astra_select_result_release(&r);

	/* 5. 10 % faster, but the spreads overlap: noise, nothing kept. */
	silu_table(&tb);
	tb.nv = 2;
	for (c = 0; c < 5; c++)
		set(&tb, 1, c, tb.tim[c].median * 0.9, 0.15);
	CHECK_INT(run(&tb, &r), 0);
	CHECK_INT(r.nr_kept, 0);
	astra_select_result_release(&r);

	/* 6. Two equal variants (a tie everywhere): the first is kept. */
	silu_table(&tb);
	tb.nv = 4;
	for (c = 0; c < 5; c++)
		tb.tim[3 * tb.nc + c] = tb.tim[2 * tb.nc + c];
	CHECK_INT(run(&tb, &r), 0);
	CHECK_INT(r.nr_kept, 1);
	CHECK_INT(r.kept[0], 2);
	astra_select_result_release(&r);
	/* ... unless the second is better at the largest shape on an equal geometric mean. */
	set(&tb, 3, 0, 50.0, 0.005);
	set(&tb, 3, 1, tb.tim[2 * tb.nc + 1].median * 50.5 / 50.0, 0.01);
	CHECK_INT(run(&tb, &r), 0);
	CHECK_INT(r.nr_kept, 1);
	CHECK_INT(r.kept[0], 3);
	astra_select_result_release(&r);

	/*
	 * 7. The launcher sees nothing that tells the shapes apart (no
	 * parameter): one version serves all; the vectorized one is slower
	 * than the original at 3 x 1001, so fastmath (faster at the largest,
	 * slower nowhere) is kept, as before shape dispatch.
	 */
	silu_table(&tb);
	tb.np = 0;
	CHECK_INT(run(&tb, &r), 0);
	CHECK_INT(r.nr_points, 1);
	CHECK_INT(r.nr_kept, 1);
	CHECK_INT(r.kept[0], 1);
	CHECK_INT(r.dispatch, 0);
	astra_select_result_release(&r);

	/*
	 * 8. Two instantiations of each shape (fp16 and bf16: equal values):
	 * the cases of a shape are one point, and one version serves both.
	 * At the large shape, variant 1 is best for fp16 and variant 2 for
	 * bf16 (beyond the noise each); 2 is faster for both at the small
	 * one.  No version is best at both cases of the large point: of
	 * those not slower than the original there, the one no other beats
	 * at its largest case (fp16's, the first of equal bytes, as wherever
	 * "the largest shape" is judged) runs: 1.
	 */
	memset(&tb, 0, sizeof(tb));
	tb.nc = 4;
	tb.nv = 3;
	tb.np = 1;
	tb.values[0] = tb.values[1] = 4096;
	tb.values[2] = tb.values[3] = 8;
	tb.bytes[0] = tb.bytes[1] = 1e8;
	tb.bytes[2] = tb.bytes[3] = 1e4;
	set(&tb, 0, 0, 100, 0.005);
	set(&tb, 0, 1, 100, 0.005);
	set(&tb, 0, 2, 5, 0.01);
	set(&tb, 0, 3, 5, 0.01);
	set(&tb, 1, 0, 50, 0.005);
	set(&tb, 1, 1, 70, 0.005);
	set(&tb, 1, 2, 5, 0.01);
	set(&tb, 1, 3, 5, 0.01);
	set(&tb, 2, 0, 60, 0.005);
	set(&tb, 2, 1, 55, 0.005);
	set(&tb, 2, 2, 5, 0.01);
	set(&tb, 2, 3, 5, 0.01);
	CHECK_INT(run(&tb, &r), 0);
	CHECK_INT(r.nr_points, 2);
	CHECK_INT(r.choice[0], r.choice[1]);
	CHECK_INT(r.choice[0], 1);
	CHECK_INT(r.largest, 0);
	CHECK_INT(r.nr_kept, 1);
	CHECK_INT(r.dispatch, 0);
	astra_select_result_release(&r);

	/* 9. A candidate not timed at every case is never kept; an untimed original is an error. */
	silu_table(&tb);
	set(&tb, 2, 3, 0, 0);
	CHECK_INT(run(&tb, &r), 0);
	CHECK_INT(r.nr_kept, 1);
	CHECK_INT(r.kept[0], 1);
	astra_select_result_release(&r);
	silu_table(&tb);
	set(&tb, 0, 2, 0, 0);
	CHECK_INT(run(&tb, &r), -1);
	tb.nc = 0;
	CHECK_INT(run(&tb, &r), -1);

	return unit_done();
}
