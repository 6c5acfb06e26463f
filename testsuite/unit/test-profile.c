/* Unit tests for verify/profile.c: the "faster" rule and roofline fractions. */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verify/profile.h"
#include "testsuite/unit/unit.h"

int main(void)
{
	struct astra_timing base = { 100.0, 98.0, 102.0, 97.0, 50 };
	struct astra_timing t;
	struct astra_ceilings ce = { 3000.0, 60000.0 };
	struct astra_profile p;
	double s;

	/*
	 * Launch-bound cases: a difference of one timer quantum (3.936 vs
	 * 4.096 us, seen on an H200, both tight) is not "slower" nor
	 * "faster"; a real 1 us difference at the same scale is.
	 */
	{
		struct astra_timing a = { 3.936, 3.936, 3.936, 3.9, 300 };
		struct astra_timing b = { 4.096, 4.096, 4.096, 4.0, 300 };
		struct astra_timing c = { 5.1, 5.0, 5.2, 4.9, 300 };
		CHECK_INT(astra_profile_compare(&a, &b, &s), 0);
		CHECK_INT(astra_profile_compare(&b, &a, &s), 0);
		CHECK_INT(astra_profile_compare(&a, &c, &s), -1);
		CHECK_INT(astra_profile_compare(&c, &a, &s), 1);
	}

	/* The same kernel against itself: never faster or slower. */
	t = base;
	CHECK_INT(astra_profile_compare(&base, &t, &s), 0);
	CHECK(s == 1.0);
	/* 2 % faster, spreads apart: below the 3 % bar. */
	t = (struct astra_timing){ 98.0, 97.5, 98.5, 97.0, 50 };
	CHECK_INT(astra_profile_compare(&base, &t, &s), 0);
	/* 10 % faster but the spreads overlap: noise. */
	t = (struct astra_timing){ 90.0, 80.0, 99.0, 70.0, 50 };
	CHECK_INT(astra_profile_compare(&base, &t, &s), 0);
	/* 2x faster, clean. */
	t = (struct astra_timing){ 50.0, 49.0, 51.0, 48.0, 50 };
	CHECK_INT(astra_profile_compare(&base, &t, &s), 1);
	CHECK(s > 1.99 && s < 2.01);
	/* A launch-bound kernel: 8 % but 0.3 us, below the events' resolution. */
	{
		struct astra_timing small = { 4.0, 3.98, 4.02, 3.9, 300 }, small2 = { 3.7, 3.69, 3.71, 3.6, 300 };
		CHECK_INT(astra_profile_compare(&small, &small2, &s), 0);
		CHECK_INT(astra_profile_compare(&small2, &small, &s), 0);
		small2 = (struct astra_timing){ 3.4, 3.39, 3.41, 3.3, 300 };
		CHECK_INT(astra_profile_compare(&small, &small2, &s), 1);
	}
	/* Slower beyond the noise. */
	t = (struct astra_timing){ 120.0, 118.0, 122.0, 117.0, 50 };
	CHECK_INT(astra_profile_compare(&base, &t, &s), -1);

	/* Roofline: 300 MB in 100 us = 3000 GB/s = the ceiling. */
	memset(&p, 0, sizeof(p));
	CHECK_INT(astra_profile_fill(&p, &base, 300e6, 0, &ce), 0);
	CHECK(p.bw_frac > 0.999 && p.bw_frac < 1.001);
	CHECK(p.spread > 0.0199 && p.spread < 0.0201);
	CHECK_INT(astra_profile_fill(&p, &base, 400e6, 0, &ce), 1); /* 1.33x the ceiling */
	CHECK_INT(astra_profile_fill(&p, &base, 0, 7e9, &ce), 1);   /* 70 TFLOP/s > 60 */
	CHECK_INT(astra_profile_fill(&p, &base, 1e6, 1e6, NULL), 0);
	CHECK(p.bw_frac == 0);

	/*
	 * Which candidate the loop keeps (figures from an H100 run of the
	 * suite, rmsnorm's and fused_add_rmsnorm's round 0 in order).
	 */
	{
		static const double rms[][2] = { { 56.436, 33.189 }, { 23.329, 28.677 }, { 57.678, 42.616 },
						 { 56.402, 33.236 }, { 63.257, 40.356 }, { 62.570, 46.091 },
						 { 63.450, 44.421 }, { 62.462, 42.946 } };
		double cur = 1, cur_large = 1, seen = 0;
		size_t i, kept = 99;
		for (i = 0; i < sizeof(rms) / sizeof(rms[0]); i++) {
			if (astra_profile_prefer(rms[i][0], rms[i][1], cur, cur_large, seen, 0.01, 0.03)) {
				cur = rms[i][0];
				cur_large = rms[i][1];
				kept = i;
			}
			if (rms[i][0] > seen)
				seen = rms[i][0];
		}
		/* 62.57x overall (a tie with 63.26x), 46.1x at the largest shape, not 40.4x */
		CHECK_INT((int)kept, 5);
	}
	/* clearly faster overall wins, even if slower at the largest shape */
	CHECK_INT(astra_profile_prefer(2.100, 1.000, 2.000, 1.200, 2.000, 0.01, 0.03), 1);
	/* a tie overall, faster at the largest shape */
	CHECK_INT(astra_profile_prefer(2.005, 1.290, 1.987, 1.225, 1.987, 0.01, 0.03), 1);
	/* a tie overall, the same at the largest shape */
	CHECK_INT(astra_profile_prefer(1.990, 1.230, 1.987, 1.225, 1.987, 0.01, 0.03), 0);
	/* 2 % faster overall and not slower at the largest shape */
	CHECK_INT(astra_profile_prefer(2.040, 1.225, 2.000, 1.225, 2.000, 0.01, 0.03), 1);
	/* 2 % faster overall but 10 % slower at the largest shape */
	CHECK_INT(astra_profile_prefer(2.040, 1.100, 2.000, 1.225, 2.000, 0.01, 0.03), 0);
	/* not a tie with the best seen (2.2x): no drifting down through ties */
	CHECK_INT(astra_profile_prefer(2.060, 1.500, 2.050, 1.200, 2.200, 0.01, 0.03), 0);
	/* slower overall beyond the band */
	CHECK_INT(astra_profile_prefer(1.900, 1.500, 2.000, 1.200, 2.000, 0.01, 0.03), 0);
	/* against the original (1.0, 1.0) */
	CHECK_INT(astra_profile_prefer(1.050, 1.020, 1.0, 1.0, 0, 0.01, 0.03), 1);
	CHECK_INT(astra_profile_prefer(1.005, 0.990, 1.0, 1.0, 0, 0.01, 0.03), 0);

	/*
	 * A round's candidates that fit the time budget.  The case that made
	 * it (embedding on an H100, -j 1): 73 s in, round 1 took 23 s for 3
	 * candidates, round 2 proposed 8 and took 34 s, then the confirmation
	 * 13 s: 120.2 s of a 120 s budget.  Now 4 of the 8.
	 */
	CHECK_INT(astra_profile_fit_round(73.0, 120.0, 23.0, 3, 8), 4);
	CHECK_INT(astra_profile_fit_round(30.0, 120.0, 23.0, 3, 8), 8);     /* room for all */
	CHECK_INT(astra_profile_fit_round(100.0, 120.0, 23.0, 3, 8), 1);    /* 8.5 s of room, 7.7 s each */
	CHECK_INT(astra_profile_fit_round(105.0, 120.0, 23.0, 3, 8), 0);    /* not even one: stop */
	CHECK_INT(astra_profile_fit_round(100.0, 120.0, 0.0, 0, 5), 5);     /* no previous round */
	CHECK_INT(astra_profile_fit_round(100.0, 120.0, 10.0, 10, 5), 5);   /* 1 s each, 15 s of room */
	CHECK_INT(astra_profile_fit_round(100.0, 120.0, 10.0, 10, 50), 15);

	return unit_done();
}
