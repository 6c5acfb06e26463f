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
 *   confirm: the best candidate is judged once more, alone, with fresh
 *            seeds; it must be faster than the original beyond the noise
 *            overall and slower at no tested shape.
 * The outcome is a verdict for the cache (cache/manifest.h): FASTER with
 * the variant and its evidence, NO_FASTER, or FAILED with the reason.
 *
 * Candidates that are not faster at every shape are never chosen: a
 * substituted variant must not be a regression anywhere it was measured.
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
	size_t max_candidates;           /* per round; 0: 32 */
	int no_run;                      /* no GPU: propose and compile only */
	void (*progress)(void *data, const struct astra_loop_progress *p);
	void *progress_data;
	/* Optimizers to use instead of the table's (tests; the caller frees them). */
	struct astra_optimizer *custom;
	size_t nr_custom;
};

struct astra_loop_result {
	enum astra_verdict verdict;      /* NONE when no_run */
	char *reason;                    /* for NO_FASTER / FAILED / no_run */
	struct astra_variant best;       /* text NULL unless FASTER */
	double speedup;                  /* geometric mean over shapes (confirmed) */
	double speedup_largest;          /* at the largest shape */
	double baseline_us, best_us;     /* at the largest shape */
	double baseline_bw_frac, best_bw_frac; /* of the measured copy ceiling */
	int rounds;
	size_t tried, compiled, accepted;
	double seconds;
	double gpu_wait_seconds;         /* of seconds, waiting for the GPU other kernels held */
	/* Evidence of the confirming run (or the last round), for the cache. */
	struct astra_verify_result evidence;
	int have_evidence;
	struct astra_vec log;            /* one line per candidate: origin, verdict, reason/speedup */
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
 * Fill a cache entry from a loop result (verdict, variant, speedup,
 * timings per shape, shapes, seeds, device, toolchain, optimizer).  The
 * caller sets key, cc, kernel identity and the key's labelled inputs.
 */
void astra_loop_fill_entry(const struct astra_loop_result *res, const struct astra_loop_opts *opts,
			   struct astra_entry *e);

#endif
