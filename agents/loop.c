/*
 * loop.c - the optimization loop (see loop.h).
 *
 * The loop is the planning role's frame: it owns rounds, the history and
 * the choice of the best candidate; the optimizers (rules, LLM) are the
 * planning and coding roles; verify/verify.c is the testing and profiling
 * roles.  Separate from the pipeline and from warmup because both run it:
 * the `optimize` policy during a build, and `astra-cc --warmup` offline.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agents/loop.h"
#include "agents/optimizer.h"
#include "lib/config.h"
#include "lib/log.h"
#include "verify/gpu.h"

#define MAX_OPTIMIZERS 4
/* A round must beat the best so far by this much to count as a gain. */
#define ROUND_GAIN 0.01
/* Geometric means closer than this are a tie (the timing protocol's 3 % bar). */
#define TIE_BAND 0.03
/* Near the roofline: nothing left worth a round. */
#define NEAR_ROOFLINE 0.90

struct loop {
	const struct astra_tu *tu;
	const struct astra_kernel *k;
	const struct astra_cmdline *cl;
	const struct astra_loop_opts *opts;
};

static int try_compile(void *data, const struct astra_variant *v, struct astra_buf *errors)
{
	struct loop *l = data;
	return astra_verify_try_compile(l->tu, l->k, l->cl, l->opts->nvcc, v, errors);
}

void astra_loop_result_init(struct astra_loop_result *r)
{
	memset(r, 0, sizeof(*r));
	astra_vec_init(&r->log);
}

void astra_loop_result_release(struct astra_loop_result *r)
{
	free(r->reason);
	free(r->transcript);
	astra_variant_release(&r->best);
	if (r->have_evidence)
		astra_verify_result_release(&r->evidence);
	astra_vec_clear(&r->log);
	astra_loop_result_init(r);
}

static void set_reason(struct astra_loop_result *r, const char *fmt, ...) ASTRA_PRINTF(2, 3);
static void set_reason(struct astra_loop_result *r, const char *fmt, ...)
{
	va_list ap;
	free(r->reason);
	va_start(ap, fmt);
	r->reason = xvasprintf(fmt, ap);
	va_end(ap);
}

static unsigned optimizer_set(const struct astra_loop_opts *o)
{
	unsigned set;
	if (o->optimizers)
		return o->optimizers;
	/* The setting is checked when read (lib/config.c); the default is the rules. */
	set = astra_optimizer_set_parse(astra_config_str(ASTRA_CFG_OPTIMIZER));
	return set ? set : ASTRA_OPTIMIZERS_RULES;
}

static void copy_variant(struct astra_variant *dst, const struct astra_variant *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->text = src->text ? xstrdup(src->text) : NULL;
	dst->grid = src->grid ? xstrdup(src->grid) : NULL;
	dst->block = src->block ? xstrdup(src->block) : NULL;
	dst->shmem = src->shmem ? xstrdup(src->shmem) : NULL;
	dst->origin = src->origin ? xstrdup(src->origin) : NULL;
}

/* The case that moves the most bytes: where the roofline means something. */
static size_t largest_case(const struct astra_verify_result *v)
{
	size_t i, best = 0;
	for (i = 1; i < v->nr_cases; i++)
		if (v->bytes[i] > v->bytes[best])
			best = i;
	return best;
}

/*
 * May candidate c become the variant?  Accepted by every check, faster
 * than the original beyond the noise overall, slower at no timed case,
 * and no timing above the device's ceiling.
 */
static int eligible(const struct astra_verify_result *v, const struct astra_cand_result *c, const char **why)
{
	size_t i;
	if (c->verdict != ASTRA_CAND_ACCEPTED) {
		*why = "rejected";
		return 0;
	}
	if (c->measurement_error) {
		*why = "timing above the device ceiling (measurement error)";
		return 0;
	}
	if (!c->faster) {
		*why = "not faster beyond the noise";
		return 0;
	}
	for (i = 0; c->cases && i < v->nr_cases; i++) {
		if (c->cases[i].timed && c->cases[i].cmp < 0) {
			static char buf[256];
			snprintf(buf, sizeof(buf), "slower at %s (%.2f us vs %.2f us)", v->labels ? v->labels[i] : "a shape",
				 c->cases[i].timing.median, v->baseline ? v->baseline[i].timing.median : 0.0);
			*why = buf;
			return 0;
		}
	}
	*why = NULL;
	return 1;
}

static void record_attempt(struct astra_attempt **hist, size_t *nr, size_t *alloc, const struct astra_variant *v,
			   const struct astra_cand_result *c)
{
	struct astra_attempt *a;
	ALLOC_GROW(*hist, *nr + 1, *alloc);
	a = &(*hist)[(*nr)++];
	memset(a, 0, sizeof(*a));
	a->origin = xstrdup(v->origin ? v->origin : "?");
	a->text = xstrdup(v->text ? v->text : "");
	a->compiled = !(c->check && (!strcmp(c->check, "compile") || !strcmp(c->check, "signature") ||
				     !strcmp(c->check, "syntax") || !strcmp(c->check, "preprocessor") ||
				     !strcmp(c->check, "host-code") || !strcmp(c->check, "stream") ||
				     !strcmp(c->check, "candidate") ||
				     !strcmp(c->check, "state") || !strcmp(c->check, "kernel-missing") ||
				     !strcmp(c->check, "geometry")));
	a->accepted = c->verdict == ASTRA_CAND_ACCEPTED;
	if (c->verdict != ASTRA_CAND_ACCEPTED)
		a->reason = xasprintf("%s: %s", c->check ? c->check : "rejected", c->reason ? c->reason : "");
	else if (!c->faster)
		a->reason = xstrdup("correct, but not faster beyond the noise");
	a->speedup = c->speedup;
}

static void release_history(struct astra_attempt *hist, size_t nr)
{
	size_t i;
	for (i = 0; i < nr; i++) {
		free(hist[i].origin);
		free(hist[i].text);
		free(hist[i].reason);
	}
	free(hist);
}

static int seen_before(const struct astra_attempt *hist, size_t nr, const struct astra_variant *cands, size_t n,
		       const char *text)
{
	size_t i;
	for (i = 0; i < nr; i++)
		if (!strcmp(hist[i].text, text))
			return 1;
	for (i = 0; i < n; i++)
		if (cands[i].text && !strcmp(cands[i].text, text))
			return 1;
	return 0;
}

static void progress(const struct astra_loop_opts *o, const struct astra_kernel *k, int round, size_t n,
		     double best, const char *phase)
{
	struct astra_loop_progress p = { k->name, round, n, best, phase };
	if (o->progress)
		o->progress(o->progress_data, &p);
	astra_trace(ASTRA_TRACE_LOOP, "%s: round %d: %s %zu candidates (best %.3fx)", k->name, round, phase, n, best);
}

int astra_loop_run(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		   const struct astra_loop_opts *opts, struct astra_loop_result *res)
{
	struct astra_optimizer *ops[MAX_OPTIMIZERS];
	size_t nr_ops = 0, i;
	unsigned set = optimizer_set(opts);
	int max_rounds = opts->max_rounds ? opts->max_rounds : (int)astra_config_int(ASTRA_CFG_MAX_ROUNDS);
	double budget = opts->time_budget > 0 ? opts->time_budget : (double)astra_config_int(ASTRA_CFG_TIME_BUDGET);
	size_t max_cands = opts->max_candidates ? opts->max_candidates : 32;
	struct astra_attempt *hist = NULL;
	size_t nr_hist = 0, alloc_hist = 0;
	struct astra_variant best = { 0 };
	double best_speedup = 1.0, best_bw = 0, best_large = 1.0, best_seen = 0;
	struct astra_profile baseline = { 0 };
	int have_baseline = 0, round, cc = 0;
	double t0 = astra_now(), last_round = 0, round_t0;
	size_t last_n = 0;
	struct loop l = { tu, k, cl, opts };
	unsigned long long seed = 0x5eed0000ull;

	astra_loop_result_init(res);
	if (max_rounds < 1)
		max_rounds = 1;
	/*
	 * The rules plan for the architecture (tanh.approx, say, needs
	 * sm_75): tell round 0 what the GPU is instead of waiting for its
	 * first run to say so.
	 */
	if (!opts->no_run) {
		struct astra_gpu g;
		if (astra_gpu_probe(opts->nvcc, &g))
			cc = g.cc;
	}
	if (opts->custom) {
		for (i = 0; i < opts->nr_custom && i < MAX_OPTIMIZERS; i++)
			ops[nr_ops++] = &opts->custom[i];
	} else {
		size_t nr_kinds;
		const struct astra_optimizer_kind *kinds = astra_optimizer_kinds(&nr_kinds);
		for (i = 0; i < nr_kinds && nr_ops < MAX_OPTIMIZERS; i++)
			if (set & (1u << i))
				ops[nr_ops++] = kinds[i].new();
	}
	if (!nr_ops) {
		set_reason(res, "no optimizer is enabled");
		res->verdict = ASTRA_VERDICT_FAILED;
		return -1;
	}

	for (round = 0; round < max_rounds; round++) {
		struct astra_variant *cands = xcalloc(max_cands, sizeof(*cands));
		const char **names = xcalloc(max_cands, sizeof(*names));
		size_t n = 0;
		struct astra_opt_context ctx = { tu, k, cl, have_baseline ? &baseline : NULL, hist, nr_hist,
						 best.text ? &best : NULL, round, cc, try_compile, &l };
		struct astra_verify_opts vo = ASTRA_VERIFY_OPTS_INIT;
		struct astra_verify_result vr;
		int improved = 0, ret;
		size_t big;

		/*
		 * Another round and the confirmation must fit the budget: the
		 * last round's duration predicts this one's, and confirming
		 * costs about half of one.
		 */
		if (round > 0 && astra_now() - t0 + 1.5 * last_round > budget) {
			astra_vec_pushf(&res->log, "stopped: another round would overrun the time budget of %.0f s", budget);
			free(cands);
			free(names);
			break;
		}
		round_t0 = astra_now();
		progress(opts, k, round, 0, best_speedup, "proposing");
		for (i = 0; i < nr_ops && n < max_cands; i++) {
			struct astra_variant *got = xcalloc(max_cands - n, sizeof(*got));
			int m = ops[i]->propose(ops[i], &ctx, got, max_cands - n), j;
			if (m < 0) {
				astra_vec_pushf(&res->log, "round %d: optimizer %s failed", round, ops[i]->name);
				m = 0;
			}
			for (j = 0; j < m; j++) {
				if (got[j].text && !seen_before(hist, nr_hist, cands, n, got[j].text))
					cands[n++] = got[j];
				else
					astra_variant_release(&got[j]);
			}
			free(got);
		}
		if (!n) {
			astra_vec_pushf(&res->log, "stopped: round %d: nothing new to try", round);
			free(cands);
			free(names);
			break;
		}
		if (round > 0) {
			/* As many as the budget has room for, in the optimizers' order. */
			size_t fit = astra_profile_fit_round(astra_now() - t0, budget, last_round, last_n, n);
			if (!fit) {
				astra_vec_pushf(&res->log, "stopped: round %d would overrun the time budget of %.0f s",
						round, budget);
				for (i = 0; i < n; i++)
					astra_variant_release(&cands[i]);
				free(cands);
				free(names);
				break;
			}
			if (fit < n) {
				astra_vec_pushf(&res->log, "round %d: %zu of %zu candidates, to fit the time budget of %.0f s",
						round, fit, n, budget);
				for (i = fit; i < n; i++)
					astra_variant_release(&cands[i]);
				n = fit;
			}
		}
		for (i = 0; i < n; i++)
			names[i] = cands[i].origin;
		res->tried += n;
		res->rounds = round + 1;

		progress(opts, k, round, n, best_speedup, "verifying");
		vo.nvcc = opts->nvcc;
		vo.no_run = opts->no_run;
		vo.seed = seed + (unsigned long long)round;
		memset(&vr, 0, sizeof(vr));
		ret = astra_verify(tu, k, cl, cands, names, n, &vo, &vr);
		res->gpu_wait_seconds += vr.gpu_wait_seconds;
		if (ret < 0 || !vr.compiled || vr.setup_check || !vr.ran) {
			/*
			 * Compiled: the candidates that are in the program that
			 * compiled (none when the test itself does not build; not
			 * those the gates, the compiler or the geometry rejected).
			 */
			for (i = 0; i < vr.nr_cands && vr.compiled && !vr.setup_check; i++)
				if (vr.cands[i].verdict != ASTRA_CAND_REJECTED)
					res->compiled++;
			if (vr.setup_check) {
				res->verdict = ASTRA_VERDICT_FAILED;
				set_reason(res, "the original kernel fails its own test (%s): %s", vr.setup_check,
					   vr.not_run ? vr.not_run : "check the pragma");
			} else if (!vr.ran && vr.compiled) {
				res->verdict = ASTRA_VERDICT_NONE;
				set_reason(res, "%s", vr.not_run ? vr.not_run : "the test program did not run");
			} else {
				res->verdict = ASTRA_VERDICT_FAILED;
				set_reason(res, "%s", vr.not_run ? vr.not_run : "the test program could not be built");
			}
			/* Keep what the round showed (compile results) for the caller. */
			if (res->have_evidence)
				astra_verify_result_release(&res->evidence);
			res->evidence = vr;
			res->have_evidence = 1;
			for (i = 0; i < n; i++)
				astra_variant_release(&cands[i]);
			free(cands);
			free(names);
			goto out;
		}
		astra_vec_pushf(&res->log,
				"round %d: %zu candidates: compile %.1f s, runs %.1f s (%d program runs: check %.1f, timing %.1f, "
				"post %.1f, misaligned %.1f, sanitizers %.1f), waiting for the GPU %.1f s",
				round, n, vr.compile_seconds, vr.run_seconds, vr.program_runs, vr.phase_seconds[0],
				vr.phase_seconds[1], vr.phase_seconds[2], vr.phase_seconds[3], vr.sanitizer_seconds,
				vr.gpu_wait_seconds);
		cc = vr.cc;
		big = largest_case(&vr);
		baseline = vr.baseline[big].prof;
		have_baseline = 1;
		if (round == 0) {
			res->baseline_us = baseline.time_us;
			res->baseline_bw_frac = baseline.bw_frac;
		}
		for (i = 0; i < vr.nr_cands; i++) {
			const struct astra_cand_result *c = &vr.cands[i];
			const char *why = NULL;
			int ok = eligible(&vr, c, &why);
			if (!c->check || strcmp(c->check, "compile"))
				res->compiled++;
			if (c->verdict == ASTRA_CAND_ACCEPTED)
				res->accepted++;
			record_attempt(&hist, &nr_hist, &alloc_hist, &cands[i], c);
			if (c->verdict == ASTRA_CAND_ACCEPTED)
				astra_vec_pushf(&res->log, "round %d: %s: accepted, %.3fx (%.3fx at the largest shape)%s%s",
						round, cands[i].origin ? cands[i].origin : "?", c->speedup,
						c->speedup_largest, ok ? "" : "; not eligible: ", ok ? "" : why);
			else
				astra_vec_pushf(&res->log, "round %d: %s: %s: %s", round,
						cands[i].origin ? cands[i].origin : "?", c->check ? c->check : "rejected",
						c->reason ? c->reason : "");
			if (!ok)
				continue;
			/* best_speedup, best_large: 1.0 (the original) until a candidate wins */
			if (astra_profile_prefer(c->speedup, c->speedup_largest, best_speedup, best_large, best_seen,
						 ROUND_GAIN, TIE_BAND)) {
				astra_variant_release(&best);
				copy_variant(&best, &cands[i]);
				best_speedup = c->speedup;
				best_large = c->speedup_largest;
				best_bw = c->cases ? c->cases[big].prof.bw_frac : 0;
				improved = 1;
			}
			if (c->speedup > best_seen)
				best_seen = c->speedup;
		}
		for (i = 0; i < n; i++)
			astra_variant_release(&cands[i]);
		free(cands);
		free(names);
		if (res->have_evidence)
			astra_verify_result_release(&res->evidence);
		res->evidence = vr;
		res->have_evidence = 1;
		last_round = astra_now() - round_t0;
		last_n = n;
		progress(opts, k, round, n, best_speedup, "judged");
		if (!improved && round > 0) {
			astra_vec_pushf(&res->log, "stopped: round %d brought no gain", round);
			break;
		}
		if (best_bw >= NEAR_ROOFLINE) {
			astra_vec_pushf(&res->log, "stopped: best at %.0f%% of the copy roofline", best_bw * 100);
			break;
		}
	}

	if (!best.text) {
		res->verdict = ASTRA_VERDICT_NO_FASTER;
		set_reason(res, "no candidate was correct and faster at every shape (%zu tried, %zu accepted)",
			   res->tried, res->accepted);
		goto out;
	}

	/* Confirm: the best alone, fresh seeds, a fresh process. */
	{
		struct astra_verify_opts vo = ASTRA_VERIFY_OPTS_INIT;
		struct astra_verify_result vr;
		const char *names[1] = { best.origin };
		const char *why = NULL;
		progress(opts, k, res->rounds, 1, best_speedup, "confirming");
		vo.nvcc = opts->nvcc;
		vo.seed = seed ^ 0xc0ffeeull;
		memset(&vr, 0, sizeof(vr));
		if (astra_verify(tu, k, cl, &best, names, 1, &vo, &vr) == 0 && vr.ran && vr.nr_cands == 1 &&
		    eligible(&vr, &vr.cands[0], &why)) {
			size_t big = largest_case(&vr);
			res->verdict = ASTRA_VERDICT_FASTER;
			res->speedup = vr.cands[0].speedup;
			res->speedup_largest = vr.cands[0].speedup_largest;
			res->baseline_us = vr.baseline[big].prof.time_us;
			res->baseline_bw_frac = vr.baseline[big].prof.bw_frac;
			res->best_us = vr.cands[0].cases[big].prof.time_us;
			res->best_bw_frac = vr.cands[0].cases[big].prof.bw_frac;
			res->best = best;
			memset(&best, 0, sizeof(best));
			astra_vec_pushf(&res->log, "confirmed: %s, %.3fx", res->best.origin ? res->best.origin : "?",
					res->speedup);
		} else {
			res->verdict = ASTRA_VERDICT_NO_FASTER;
			set_reason(res, "the best candidate (%s, %.3fx) did not confirm: %s",
				   best.origin ? best.origin : "?", best_speedup,
				   vr.nr_cands ? (why ? why : "rejected") : (vr.not_run ? vr.not_run : "not run"));
			astra_vec_pushf(&res->log, "%s", res->reason);
		}
		res->gpu_wait_seconds += vr.gpu_wait_seconds;
		if (res->have_evidence)
			astra_verify_result_release(&res->evidence);
		res->evidence = vr;
		res->have_evidence = 1;
	}

out:
	res->seconds = astra_now() - t0;
	astra_variant_release(&best);
	release_history(hist, nr_hist);
	for (i = 0; i < nr_ops; i++) {
		if (ops[i]->transcript && !res->transcript)
			res->transcript = ops[i]->transcript(ops[i]);
		if (!opts->custom)
			ops[i]->free(ops[i]);
	}
	return 0;
}

void astra_loop_fill_entry(const struct astra_loop_result *res, const struct astra_loop_opts *opts,
			   struct astra_entry *e)
{
	const struct astra_verify_result *v = res->have_evidence ? &res->evidence : NULL;
	size_t i;
	unsigned set = optimizer_set(opts);

	e->verdict = res->verdict;
	free(e->reason);
	e->reason = res->reason ? xstrdup(res->reason) : NULL;
	if (res->verdict == ASTRA_VERDICT_FASTER && res->best.text) {
		astra_entry_set_variant(e, res->best.text, strlen(res->best.text));
		free(e->origin);
		e->origin = res->best.origin ? xstrdup(res->best.origin) : NULL;
	}
	e->speedup = res->verdict == ASTRA_VERDICT_FASTER ? res->speedup : 1.0;
	e->seconds = res->seconds;
	free(e->optimizer);
	e->optimizer = xstrdup(astra_optimizer_set_name(set));
	if (v) {
		free(e->device);
		e->device = v->device ? xstrdup(v->device) : NULL;
		free(e->driver);
		e->driver = xasprintf("%d.%d", v->driver / 1000, (v->driver % 1000) / 10);
		for (i = 0; i < v->nr_cases; i++) {
			const struct astra_timing *b = &v->baseline[i].timing;
			astra_entry_add_shape(e, v->labels[i]);
			if (v->nr_cands == 1 && v->cands[0].cases && v->cands[0].cases[i].timed) {
				const struct astra_timing *c = &v->cands[0].cases[i].timing;
				astra_entry_add_timing(e, v->labels[i], b->median,
						       b->median > 0 ? (b->q75 - b->q25) / b->median : 0, c->median,
						       c->median > 0 ? (c->q75 - c->q25) / c->median : 0);
			}
		}
	}
}
