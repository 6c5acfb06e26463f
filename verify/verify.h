/*
 * verify.h - the testing role: judge candidate variants of a kernel.
 *
 * Given the TU, the annotated kernel, its nvcc command line and a round of
 * candidates, astra_verify() screens each candidate (verify/screen.h),
 * writes one test program for the whole round (verify/harness.h), compiles
 * it with the TU's own flags (attributing compiler errors to the candidate
 * that caused them, and dropping it), runs it in child processes with time
 * limits (re-running without a candidate that crashed or hung the
 * program), runs compute-sanitizer's memcheck and racecheck where present,
 * and returns a verdict per candidate with its evidence: which cases and
 * checks ran, the error figures, the timings against the baseline, the
 * roofline fractions.  The protocol is in doc/verify.md; nothing a
 * candidate does can fail the user's build: every failure is a verdict.
 *
 * Ownership: the result owns every string and array in it; release it with
 * astra_verify_result_release().  The inputs are only read.
 */
#ifndef ASTRA_VERIFY_H
#define ASTRA_VERIFY_H

#include <stddef.h>

#include "verify/profile.h"
#include "lib/buf.h"
#include "lib/nvccopts.h"
#include "front/kernel.h"

enum astra_cand_verdict {
	ASTRA_CAND_ACCEPTED,  /* passed every check that ran */
	ASTRA_CAND_REJECTED,  /* failed one: see check and reason */
	ASTRA_CAND_NOT_RUN,   /* could not be judged (no GPU, or the test itself is wrong) */
};

/*
 * Stable names of the checks (doc/verify.md lists them; tests assert them):
 *   screen:    preprocessor stream state host-code kernel-missing syntax candidate
 *   compile:   compile signature geometry
 *   run:       mismatch unwritten nonfinite extra-write stale nondeterministic
 *              input-modified out-of-bounds launch crash misaligned hang
 *   sanitizer: memcheck racecheck
 */

/* A case's scalar arguments, by parameter name. */
struct astra_case_dims {
	char **names;
	double *values;
	size_t nr;
};

/* One version (baseline or candidate) at one test case. */
struct astra_case_result {
	int timed;                   /* timing ran */
	struct astra_timing timing;
	struct astra_profile prof;   /* time, bytes, flops, roofline fractions */
	int above_ceiling;           /* faster than the device allows: a measurement error */
	int cmp;                     /* candidates: +1 faster / -1 slower beyond noise / 0 */
	double speedup;              /* candidates: baseline median / this median */
	int trials;                  /* correctness trials passed */
	double max_abs, max_rel;     /* largest error seen (finite lanes) */
	double max_ratio;            /* largest error / tolerance (<= 1 passes) */
};

struct astra_cand_result {
	char *name;
	enum astra_cand_verdict verdict;
	const char *check;           /* a name from the list above; NULL when accepted */
	char *reason;                /* what went wrong, with the evidence */
	char *compile_log;           /* the compiler's messages about this candidate, or NULL */
	struct astra_case_result *cases; /* nr_cases entries (NULL if it never ran) */
	double speedup;              /* geometric mean over timed cases, 0 unknown */
	double speedup_largest;      /* on the case that moves the most bytes */
	int faster;                  /* the timing protocol's verdict (doc/verify.md) */
	int measurement_error;       /* some case above the device ceiling while the baseline is not */
	int misaligned;              /* misaligned pointers were tried on it */
	int memcheck, racecheck;     /* 1 ran clean, 0 did not run */
	int regs, spills;            /* from ptxas, -1 unknown */
	/*
	 * Rejected by check "mismatch": the output, its largest error over
	 * the tolerance, and the tolerance in effect (what agents/hints.c
	 * reads).  NULL / 0 otherwise.
	 */
	char *mismatch_output;
	double mismatch_ratio, mismatch_rtol, mismatch_atol;
};

struct astra_verify_result {
	int ran;                     /* the test program ran on a GPU */
	int compiled;                /* the test program compiled (with at least the reference) */
	char *not_run;               /* why it did not run (or did not finish), NULL if it did */
	const char *setup_check;     /* the original failed this check: the pragma is wrong */
	/* The device. */
	char *device, *uuid;
	int cc, driver, runtime;
	struct astra_ceilings ceilings;
	/* The cases and the baseline's figures at each. */
	size_t nr_cases;
	char **labels;
	double *bytes, *flops;       /* per launch, from the pragma */
	double *written;             /* per launch: the bytes written, what a kernel must move at least */
	/*
	 * What a host launcher sees of each case: the value of every
	 * arithmetic scalar parameter, in the kernel's order (dims[case]).
	 */
	struct astra_case_dims *dims;
	struct astra_case_result *baseline;
	char **tolerances;           /* per case: each output's "name type rtol=R atol=A", "; "-separated */
	int baseline_above_ceiling;  /* the pragma's byte counts overstate the traffic */
	int reference_deterministic;
	int misaligned;              /* 1: tried; 0: not (the original faults on them, or not run) */
	unsigned long long seed;     /* the run's --seed: every trial's inputs derive from it */
	char *distributions;         /* the check trials' input distributions, in order, or NULL */
	long captured_loaded;        /* check trials' buffers read from captured inputs (doc/capture.md) */
	long captured_missing;       /* ... whose captured inputs could not be read (random inputs instead) */
	char *notes;                 /* things the reader should know, one per line */
	int memcheck, racecheck;     /* 1 ran, 0 not (unavailable or disabled) */
	/* The candidates, in the order given. */
	struct astra_cand_result *cands;
	size_t nr_cands;
	int program_runs;            /* test program processes started */
	double compile_seconds, run_seconds;
	/* run_seconds spent in each phase of the programs (check, timing, post, misaligned) and in sanitizers */
	double phase_seconds[4], sanitizer_seconds;
	double gpu_wait_seconds;     /* waiting for ASTRA_CC_GPU_LOCK (other kernels' runs) */
	char *workdir;               /* kept when opts.keep, else NULL */
	char *reproduce;             /* a command line that compiles the program again */
};

struct astra_verify_opts {
	const char *nvcc;            /* the real nvcc (required) */
	const char *cache_dir;       /* for device ceilings; NULL: the `dir` setting */
	int sanitizer;               /* -1: the `sanitizer` setting; 0 off; 1 on */
	int timing;                  /* 0: correctness only */
	int timing_only;             /* 1: time only, judge nothing (a measurement tool) */
	int screen;                  /* 0: skip the static screen (tests of the run-time checks) */
	int keep;                    /* keep the work directory */
	int no_run;                  /* generate and compile only */
	int cc;                      /* compile for this compute capability; 0: the GPU's */
	double timeout;              /* seconds per test-program run; 0: from the work (verify/sandbox.h) */
	double watchdog;             /* seconds one launch may take; 0: 5 */
	unsigned long long seed;     /* 0: the default */
	/*
	 * Testing astra-cc itself: judge with this already built test program
	 * (version i+1 is candidate i) instead of generating and compiling one.
	 * The test suite sets ASTRA_CC_TEST_PROGRAM to do the same in every
	 * verification of a process tree (warmup's workers: which GPU runs
	 * what, without a GPU or a compile).
	 */
	const char *program;
	/*
	 * The original's median time in microseconds, summed over the cases,
	 * from an earlier verification of the same kernel (the loop's earlier
	 * rounds); 0: not known.  Until this verification times the original
	 * itself, its runs' limits follow it (verify/sandbox.h).
	 */
	double ref_us;
};

#define ASTRA_VERIFY_OPTS_INIT { NULL, NULL, -1, 1, 0, 1, 0, 0, 0, 0, 0, 0, NULL, 0 }

/*
 * Judge n candidates of kernel k (from tu, compiled as cl says).  names[i]
 * names candidate i in messages (NULL or NULL entries: "candidate-<i>").
 * Returns 0 with res filled (verdicts may be NOT_RUN), or -1 when the
 * verification could not be attempted at all (logged; res->not_run says why).
 */
int astra_verify(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		 const struct astra_variant *cands, const char *const *names, size_t n,
		 const struct astra_verify_opts *opts, struct astra_verify_result *res);

void astra_verify_result_release(struct astra_verify_result *res);

/*
 * May kernel k read only part of an input buffer, so that buffers()
 * overstate its traffic?  When its pragma gives no bytes() and it takes an
 * index buffer: a const pointer to integers with a range() (given, or
 * inferred from captured indices).  Its candidates are then held to the
 * device's ceiling by the bytes they write alone (doc/verify.md).
 */
int astra_verify_reads_part(const struct astra_kernel *k);

/* Case ci's value of scalar parameter name: 1 with *value, or 0 when the program did not say. */
int astra_verify_dim(const struct astra_verify_result *res, size_t ci, const char *name, double *value);

/* The result as JSON text (malloc'd); the format is in doc/verify.md. */
char *astra_verify_result_json(const struct astra_verify_result *res, int pretty);

/* "accepted", "rejected", "not-run". */
const char *astra_cand_verdict_name(enum astra_cand_verdict v);

/*
 * Compile candidate v alone in a test program, without running it (for
 * optimizers that repair their output; see astra_opt_context.try_compile).
 * Screen and compiler messages go to errors.  Returns 0 when it compiles.
 */
int astra_verify_try_compile(const struct astra_tu *tu, const struct astra_kernel *k,
			     const struct astra_cmdline *cl, const char *nvcc, const struct astra_variant *v,
			     struct astra_buf *errors);

/* The work directory of a verification: TMPDIR/astra-verify-XXXXXX (lib/workspace.h). */
#define ASTRA_VERIFY_WORKSPACE "astra-verify-"
/*
 * In it, a link to the original's directory: the test program's quoted
 * includes are searched there (-iquote), under a name nvcc's shell keeps.
 */
#define ASTRA_VERIFY_SRCDIR_LINK "srcdir"
/*
 * Launches of one version at one case in a run, for its limits
 * (verify/sandbox.h): the check trials, three warm-ups, the timing phase's
 * repetitions (at least 15; a slow kernel gets few), post and misaligned.
 */
#define ASTRA_VERIFY_LAUNCHES 40

#endif
