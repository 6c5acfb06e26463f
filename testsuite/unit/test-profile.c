/* Unit tests for agents/profile.c: the "faster" rule and roofline fractions. */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/profile.h"
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

	return unit_done();
}
