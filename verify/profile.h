/*
 * profile.h - the profiling role: device ceilings, roofline fractions, and
 * the rule that decides whether a candidate is faster.
 *
 * The test program (verify/harness-rt.cuh) measures; this module judges.
 * It is separate from verify.c because the rules are policy that other
 * parts quote (the loop, the cache manifest, doc/verify.md).  The device's
 * measured ceilings are kept by the cache (verify/device.h).
 */
#ifndef ASTRA_PROFILE_H
#define ASTRA_PROFILE_H

#include <stddef.h>


/* What the profiling role measured for one kernel version at one shape. */
struct astra_profile {
	double time_us;       /* median */
	double spread;        /* relative half-width of the middle of the distribution */
	double bytes;         /* bytes moved per launch (from the pragma's buffers) */
	double flops;         /* per launch (from flops(...)), 0 when unknown */
	double bw_frac;       /* achieved bandwidth / measured copy ceiling */
	double flop_frac;     /* achieved FLOP rate / measured FMA ceiling */
	int regs, spills;     /* from ptxas, -1 when unknown */
};

/* Summary of one version's repeated timings at one case, microseconds. */
struct astra_timing {
	double median, q25, q75, min;
	int reps;
};

/* The device's measured ceilings. */
struct astra_ceilings {
	double copy_gbps;    /* device-to-device copy, bytes read + written per second / 1e9 */
	double fma_gflops;   /* dense FP32 FMA loop */
};

/* Thresholds (doc/verify.md, "timing"). */
#define ASTRA_PROFILE_MIN_GAIN 0.03   /* faster only if at least 3 % ... */
/*
 * ... and at least this many microseconds: CUDA events resolve about half a
 * microsecond, so below that a launch-bound kernel's medians differ by the
 * timer's quantum, not by the code (seen on an H200: 3.936 vs 4.096 us).
 */
#define ASTRA_PROFILE_MIN_ABS_US 0.5
#define ASTRA_PROFILE_ROOFLINE_SLACK 1.15 /* above 1.15x the copy ceiling: a measurement error */

/*
 * Compare a candidate's timing with the baseline's: +1 when it is faster
 * beyond the noise (median at least 3 % lower AND its upper quartile below
 * the baseline's lower quartile), -1 when slower by the same rule, else 0.
 * *speedup gets baseline median / candidate median.
 */
int astra_profile_compare(const struct astra_timing *base, const struct astra_timing *cand, double *speedup);

/*
 * Which of two verified candidates the loop keeps.  A candidate (sp: its
 * geometric-mean speedup over the shapes; sp_large: its speedup at the
 * largest shape) replaces the current best (cur, cur_large) when
 *   - its geometric mean is higher by more than the factor (1 + tie), the
 *     timing protocol's noise band: clearly faster overall; or
 *   - it ties within (1 + tie) with the highest geometric mean seen so far
 *     (best_seen, this candidate included) and is faster at the largest
 *     shape by more than (1 + gain): the large shapes are where a serving
 *     workload spends its time; or
 *   - its geometric mean is higher by more than (1 + gain) and it is not
 *     slower at the largest shape by more than that.
 * The original counts as a best of 1.0 and 1.0.  Returns 1 to replace.
 */
int astra_profile_prefer(double sp, double sp_large, double cur, double cur_large, double best_seen, double gain,
			 double tie);

/*
 * How many of a round's n proposed candidates fit the loop's time budget:
 * the previous round took last_round seconds for last_n candidates (its
 * whole time charged to them, which overestimates a larger round: the
 * fixed part is counted per candidate), and the confirmation afterwards
 * about half a round.  elapsed: seconds since the loop started.  0: stop.
 * Without a previous round, n.
 */
size_t astra_profile_fit_round(double elapsed, double budget, double last_round, size_t last_n, size_t n);

/*
 * The case that moves the most bytes, where a roofline means something
 * and "the largest shape" is judged: the first of equal ones (the
 * pragma's order; 0 without bytes).  One definition for the verifier,
 * the loop and the choice of a variant set.
 */
size_t astra_profile_largest(const double *bytes, size_t n);

/*
 * Fill prof from a timing, the bytes and FLOPs one launch moves and does,
 * and the ceilings (NULL or zeros: fractions 0).  regs/spills are left as
 * they are.  Returns 1 when the achieved rate is above the ceiling by more
 * than the slack (a measurement error), else 0.
 */
int astra_profile_fill(struct astra_profile *prof, const struct astra_timing *t, double bytes, double flops,
		       const struct astra_ceilings *ceil);

#endif
