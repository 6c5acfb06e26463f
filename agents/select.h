/*
 * select.h - which verified variants a kernel keeps, and where each runs.
 *
 * The loop times every candidate that passed the verification protocol
 * beside the original, at every test case (one instantiation at one
 * shape).  One version is rarely the fastest everywhere: vectorized code
 * wins on prefill-sized shapes and loses a microsecond at a tiny one,
 * where the launch dominates.  This module chooses the versions a cache
 * entry keeps and the one that runs at each case:
 *
 *  - At a case, a version is *best beyond the noise* when no other version
 *    is faster than it there by the timing protocol's rule
 *    (astra_profile_compare: at least 3 %, 0.5 us, and outside both
 *    spreads).  Several versions may be best at a case.
 *  - Cases the launcher cannot tell apart (the same values of every
 *    parameter it can see: the instantiations of one shape) form one
 *    point, and one version must serve them all: one that is best at each
 *    of them; if there is none (the instantiations disagree), one of the
 *    versions not slower than the original at any of them that no other
 *    of those beats at the point's largest case (the largest case decides,
 *    as it does for a single variant: doc/verify.md).
 *  - The kept set is the smallest number of candidates that, with the
 *    original where it is best, gives every point a version best there;
 *    then the fewest versions in all (a variant that is best everywhere is
 *    kept alone, with no dispatch, even where the original ties it); then
 *    the highest geometric-mean speedup over the cases, then the highest at
 *    the largest case; then the candidates that come first.
 *  - At each point the kept version with the lowest time runs (the
 *    original on a tie).
 *
 * So the original runs only where nothing beats it, a variant that is
 * best at every shape is stored alone (as before shape dispatch), and no
 * point runs a version slower than the original beyond the noise.
 * Pure: no I/O, no logging (testsuite/unit/test-select.c).
 */
#ifndef ASTRA_SELECT_H
#define ASTRA_SELECT_H

#include <stddef.h>

#include "verify/profile.h"

struct astra_select_input {
	size_t nr_cases;
	size_t nr_versions;                 /* 0: the original; 1..: candidates */
	/* [v * nr_cases + c]: version v at case c; a median <= 0 is "not timed" */
	const struct astra_timing *timing;
	/* What the launcher sees of each case: [c * nr_params + p]. */
	size_t nr_params;
	const double *values;
	/* Bytes each case moves (the largest case, the first of equal ones, breaks ties); NULL: the first case. */
	const double *bytes;
};

struct astra_select_result {
	size_t *choice;          /* per case: the version that runs there */
	size_t *kept;            /* the candidates kept (version numbers >= 1), ascending */
	size_t nr_kept;
	int uses_original;       /* the original runs at some case */
	int dispatch;            /* more than one version runs: the launcher chooses */
	double speedup;          /* geometric mean over the cases of original / chosen */
	double speedup_largest;  /* at the largest case */
	size_t largest;          /* the case that moves the most bytes */
	size_t nr_points;        /* groups of cases the launcher cannot tell apart */
};

/*
 * Choose (see above).  A candidate not timed at every case is never kept.
 * Returns 0 with out filled (nr_kept 0: nothing beats the original
 * anywhere), or -1 when the original is not timed at every case or there
 * are no cases (out is then empty).
 */
int astra_select(const struct astra_select_input *in, struct astra_select_result *out);

void astra_select_result_release(struct astra_select_result *r);

#endif
