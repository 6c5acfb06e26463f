/*
 * loop.h - the optimization loop: planning, coding, testing, profiling.
 *
 * For one annotated kernel, on the GPU of this machine:
 *   round 0: the optimizers propose candidates (agents/optimizer.h); one
 *            test program judges them all and times the original beside
 *            them (verify/verify.h), which gives the baseline profile;
 *   round r: the optimizers see the history (what compiled, what the
 *            verifier rejected and why, the speedups) and propose again;
 *   stop:    when a round brings no gain, the best is near the measured
 *            copy roofline, the round or time budget is spent, or nothing
 *            new is proposed;
 *   choose:  every candidate the verifier accepted, from every round, is
 *            a contender at every shape the rounds timed (each round's
 *            times scaled by its baseline to the first round's); the
 *            smallest set that is best at each shape beyond the noise
 *            is kept, with the original where nothing beats it
 *            (agents/select.h): one variant for all shapes when one is
 *            best everywhere, else a variant set the launcher chooses
 *            from per launch (shape dispatch, passes/dispatch.h);
 *   confirm: the kept variants are judged once more, together, with
 *            fresh seeds: each must pass the whole protocol again at
 *            every shape, and the choice is made again from this run's
 *            times alone (a variant this run does not need is dropped).
 * The outcome is a verdict for the cache (cache/manifest.h): FASTER with
 * the variant (or the variant set) and its evidence, NO_FASTER, or FAILED
 * with the reason.
 *
 * No shape runs a version slower than the original beyond the noise: a
 * substituted variant is not a regression anywhere it was measured.
 */
#ifndef ASTRA_LOOP_H
#define ASTRA_LOOP_H

#include "agents/optimizer.h"
#include "verify/verify.h"
#include "cache/manifest.h"

/* What the loop reports while it runs (for warmup's progress line). */
struct astra_loop_progress {
	const char *kernel;
	int round;
	size_t candidates;       /* in this round */
	double best_speedup;     /* so far, 1.0 = none */
	/*
	 * "proposing", "verifying", "judged", "confirming"; at the end the
	 * verdict's name (astra_verdict_name: "faster", "no-faster-variant",
	 * "failed", "none" when nothing ran), with candidates = all tried and
	 * best_speedup the confirmed one.
	 */
	const char *phase;
};

struct astra_loop_opts {
	const char *nvcc;                /* the real nvcc (required) */
	unsigned optimizers;             /* enum astra_optimizer_set; 0: the `optimizer` setting */
	int max_rounds;                  /* 0: the `max_rounds` setting */
	double time_budget;              /* seconds; 0: the `time_budget` setting */
	size_t max_candidates;           /* per round; 0: ASTRA_ROUND_CANDIDATES (rules/planner.h) */
	int no_run;                      /* no GPU: propose and compile only */
	int cc;                          /* no_run: the target the rules plan for (0: unknown) */
	int measure_original;            /* round 0 proposes nothing: time the original anyway (timing only) */
	void (*progress)(void *data, const struct astra_loop_progress *p);
	void *progress_data;
	/* Optimizers to use instead of the table's (tests; the caller frees them). */
	struct astra_optimizer *custom;
	size_t nr_custom;
	/* The testing role to use instead of astra_verify() (tests; the same contract). */
	int (*verify)(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		      const struct astra_variant *cands, const char *const *names, size_t n,
		      const struct astra_verify_opts *opts, struct astra_verify_result *res);
};

struct astra_loop_result {
	enum astra_verdict verdict;      /* NONE when no_run */
	char *reason;                    /* for NO_FASTER / FAILED / no_run */
	struct astra_variant best;       /* text NULL unless FASTER; with dispatch, the variant at the largest shape */
	double speedup;                  /* geometric mean over shapes (confirmed) */
	double speedup_largest;          /* at the largest shape */
	double baseline_us, best_us;     /* at the largest shape */
	double baseline_bw_frac, best_bw_frac; /* of the measured copy ceiling */
	double bytes;                    /* what the original moves at the largest shape (the fractions' numerator) */
	int rounds;
	size_t tried, compiled, accepted;
	double seconds;
	double gpu_wait_seconds;         /* of seconds, waiting for the GPU other kernels held */
	/*
	 * Shape dispatch (FASTER only): the variants kept, in the order the
	 * rounds proposed them, and per case of the evidence the version that
	 * runs there (0: the original; i: variants[i - 1]); params: the scalar
	 * parameters whose values tell the shapes apart (what the launcher
	 * reads).  With dispatch 0 the one variant runs everywhere (best).
	 */
	int dispatch;
	struct astra_variant *variants;
	size_t nr_variants;
	size_t *choice;
	size_t *evidence_cand;           /* per variant: its index in evidence.cands */
	struct astra_vec params;
	/*
	 * Every candidate the verifier accepted in the rounds (the contenders
	 * of the choice), with its median per case of the rounds, scaled to
	 * the first round's baseline (baseline_us).  For reports.
	 */
	struct astra_loop_contender {
		char *origin, *text;
		int round;
		double *us;                  /* nr_cases */
	} *contenders;
	size_t nr_contenders, nr_contender_cases;
	double *contender_baseline_us;   /* nr_contender_cases */
	/* Evidence of the confirming run (or the last round), for the cache. */
	struct astra_verify_result evidence;
	int have_evidence;
	struct astra_vec log;            /* one line per candidate: origin, verdict, reason/speedup */
	struct astra_vec hints;          /* what the user could tell (agents/hints.h), also in log as "hint: " */
	struct astra_vec advice;         /* the hints' clauses alone ("#pragma astra tolerance(...)") */
	char *transcript;                /* the LLM's conversation (JSON), redacted, or NULL */
};

void astra_loop_result_init(struct astra_loop_result *r);
void astra_loop_result_release(struct astra_loop_result *r);

/*
 * Optimize kernel k of tu (compiled as cl says).  Returns 0 with res filled
 * (any verdict), or -1 when the loop could not start (res->reason says why).
 */
int astra_loop_run(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		   const struct astra_loop_opts *opts, struct astra_loop_result *res);

/*
 * The confirming run's timing of version i (0: the original; j: the
 * variant res->variants[j - 1]) at case c of res->evidence, or NULL.
 */
const struct astra_timing *astra_loop_version_timing(const struct astra_loop_result *res, size_t i, size_t c);

/*
 * Fill a cache entry from a loop result (verdict, variant or variant set
 * with its per-shape choice, speedup, timings per shape, shapes, seeds,
 * device, toolchain, optimizer).  The
 * caller sets key, cc, kernel identity and the key's labelled inputs.
 */
void astra_loop_fill_entry(const struct astra_loop_result *res, const struct astra_loop_opts *opts,
			   struct astra_entry *e);

#endif
