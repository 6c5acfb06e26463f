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

#include "agents/hints.h"
#include "agents/loop.h"
#include "agents/optimizer.h"
#include "agents/select.h"
#include "lib/config.h"
#include "lib/log.h"
#include "rules/planner.h"
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
	astra_vec_init(&r->params);
}

void astra_loop_result_release(struct astra_loop_result *r)
{
	size_t i;
	free(r->reason);
	free(r->transcript);
	astra_variant_release(&r->best);
	for (i = 0; i < r->nr_variants; i++)
		astra_variant_release(&r->variants[i]);
	free(r->variants);
	free(r->choice);
	free(r->evidence_cand);
	astra_vec_clear(&r->params);
	for (i = 0; i < r->nr_contenders; i++) {
		free(r->contenders[i].origin);
		free(r->contenders[i].text);
		free(r->contenders[i].us);
	}
	free(r->contenders);
	free(r->contender_baseline_us);
	if (r->have_evidence)
		astra_verify_result_release(&r->evidence);
	astra_vec_clear(&r->log);
	astra_vec_clear(&r->hints);
	astra_vec_clear(&r->advice);
	astra_loop_result_init(r);
}

/* The testing role: astra_verify(), or the one a test gave. */
static int judge(const struct astra_loop_opts *o, const struct astra_tu *tu, const struct astra_kernel *k,
		 const struct astra_cmdline *cl, const struct astra_variant *cands, const char *const *names, size_t n,
		 const struct astra_verify_opts *vo, struct astra_verify_result *vr)
{
	return (o->verify ? o->verify : astra_verify)(tu, k, cl, cands, names, n, vo, vr);
}

static void set_reason(struct astra_loop_result *r, const char *fmt, ...) ASTRA_PRINTF(2, 3);

/*
 * Nothing to try, but the caller wants the original's time (a corpus, a
 * report of every kernel): one test program without candidates, timing
 * only (no sanitizers: nothing is judged).  Sets the baseline figures at
 * the largest shape, and says so in the log.
 */
static void measure_original(const struct astra_loop_opts *o, const struct astra_tu *tu, const struct astra_kernel *k,
			     const struct astra_cmdline *cl, unsigned long long seed, struct astra_loop_result *res)
{
	struct astra_verify_opts vo = ASTRA_VERIFY_OPTS_INIT;
	struct astra_verify_result vr;
	size_t big;
	vo.nvcc = o->nvcc;
	vo.seed = seed;
	vo.timing_only = 1;
	memset(&vr, 0, sizeof(vr));
	if (judge(o, tu, k, cl, NULL, NULL, 0, &vo, &vr) < 0 || !vr.ran || !vr.nr_cases) {
		astra_vec_pushf(&res->log, "the original was not measured: %s", vr.not_run ? vr.not_run : "it did not run");
	} else {
		big = astra_profile_largest(vr.bytes, vr.nr_cases);
		if (vr.baseline[big].timed) {
			res->baseline_us = vr.baseline[big].prof.time_us;
			res->baseline_bw_frac = vr.baseline[big].prof.bw_frac;
			res->bytes = vr.baseline[big].prof.bytes;
			astra_vec_pushf(&res->log, "the original measured (nothing to try): %.1f us at the largest shape",
					res->baseline_us);
		}
	}
	res->gpu_wait_seconds += vr.gpu_wait_seconds;
	astra_verify_result_release(&vr);
}
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

/*
 * May candidate c lead the rounds (the best so far, which the optimizers
 * build on)?  Accepted by every check, faster than the original beyond
 * the noise overall, and no timing above the device's ceiling.  A case
 * where it is slower does not exclude it: the choice at the end keeps
 * another version there (agents/select.h); *why notes it.
 */
static int eligible(const struct astra_verify_result *v, const struct astra_cand_result *c, const char **why)
{
	size_t i;
	*why = NULL;
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
			break;
		}
	}
	return 1;
}

/* ------------------------------------------------------------ the choice */

/*
 * A contender for the final choice: a candidate the verifier accepted,
 * timed at every case, with no measurement error; its times scaled by its
 * round's baseline to the first round's, so that rounds compare.
 */
struct contender {
	struct astra_variant v;
	struct astra_timing *t;       /* per case */
	int round;
};

struct pool {
	struct contender *c;
	size_t nr, alloc;
	size_t nr_cases;
	struct astra_timing *ref;     /* the first round's baseline, per case */
};

static void pool_release(struct pool *p)
{
	size_t i;
	for (i = 0; i < p->nr; i++) {
		astra_variant_release(&p->c[i].v);
		free(p->c[i].t);
	}
	free(p->c);
	free(p->ref);
	memset(p, 0, sizeof(*p));
}

static int timed_everywhere(const struct astra_verify_result *v, const struct astra_case_result *cases)
{
	size_t i;
	for (i = 0; i < v->nr_cases; i++)
		if (!cases || !cases[i].timed || !(cases[i].timing.median > 0))
			return 0;
	return 1;
}

/* Add round r's accepted candidates to the pool. */
static void pool_add_round(struct pool *p, const struct astra_verify_result *v, const struct astra_variant *cands,
			   int r)
{
	size_t i, j;
	if (!v->nr_cases || !timed_everywhere(v, v->baseline))
		return;
	if (!p->ref) {
		p->nr_cases = v->nr_cases;
		p->ref = xcalloc(v->nr_cases, sizeof(*p->ref));
		for (j = 0; j < v->nr_cases; j++)
			p->ref[j] = v->baseline[j].timing;
	}
	if (v->nr_cases != p->nr_cases)
		return;
	for (i = 0; i < v->nr_cands; i++) {
		const struct astra_cand_result *c = &v->cands[i];
		struct contender *k;
		if (c->verdict != ASTRA_CAND_ACCEPTED || c->measurement_error || !timed_everywhere(v, c->cases))
			continue;
		ALLOC_GROW(p->c, p->nr + 1, p->alloc);
		k = &p->c[p->nr++];
		copy_variant(&k->v, &cands[i]);
		k->round = r;
		k->t = xcalloc(v->nr_cases, sizeof(*k->t));
		for (j = 0; j < v->nr_cases; j++) {
			double f = p->ref[j].median / v->baseline[j].timing.median;
			k->t[j] = c->cases[j].timing;
			k->t[j].median *= f;
			k->t[j].q25 *= f;
			k->t[j].q75 *= f;
			k->t[j].min *= f;
		}
	}
}

/*
 * The scalar parameters whose values tell v's cases apart (what a
 * launcher can read), into names; their values per case into *values
 * ([case * nr + i], malloc'd).
 */
static void dispatch_params(const struct astra_verify_result *v, struct astra_vec *names, double **values)
{
	size_t i, c, n;
	double x, y;
	astra_vec_clear(names);
	*values = NULL;
	if (!v->nr_cases || !v->dims)
		return;
	for (i = 0; i < v->dims[0].nr; i++) {
		const char *name = v->dims[0].names[i];
		int everywhere = 1, varies = 0;
		for (c = 0; c < v->nr_cases && everywhere; c++) {
			everywhere = astra_verify_dim(v, c, name, &x) && isfinite(x);
			if (everywhere && c && astra_verify_dim(v, 0, name, &y) && x != y)
				varies = 1;
		}
		if (everywhere && varies)
			astra_vec_push(names, name);
	}
	n = names->nr;
	*values = xcalloc(v->nr_cases * (n ? n : 1), sizeof(double));
	for (c = 0; c < v->nr_cases; c++)
		for (i = 0; i < n; i++)
			astra_verify_dim(v, c, names->v[i], &(*values)[c * n + i]);
}

/* The pool, for reports (astra_loop_result.contenders). */
static void report_contenders(const struct pool *p, struct astra_loop_result *res)
{
	size_t i, c;
	if (!p->nr)
		return;
	res->nr_contender_cases = p->nr_cases;
	res->contender_baseline_us = xcalloc(p->nr_cases, sizeof(double));
	for (c = 0; c < p->nr_cases; c++)
		res->contender_baseline_us[c] = p->ref[c].median;
	res->contenders = xcalloc(p->nr, sizeof(*res->contenders));
	for (i = 0; i < p->nr; i++) {
		struct astra_loop_contender *k = &res->contenders[res->nr_contenders++];
		k->origin = xstrdup(p->c[i].v.origin ? p->c[i].v.origin : "?");
		k->text = xstrdup(p->c[i].v.text ? p->c[i].v.text : "");
		k->round = p->c[i].round;
		k->us = xcalloc(p->nr_cases, sizeof(double));
		for (c = 0; c < p->nr_cases; c++)
			k->us[c] = p->c[i].t[c].median;
	}
}

/* "original" or the contender's origin, for the log. */
static const char *version_name(const struct contender *const *vs, size_t i)
{
	if (!i)
		return "the original";
	return vs[i - 1]->v.origin ? vs[i - 1]->v.origin : "?";
}

/* One log line per case: the version that runs there and every version's time. */
static void log_choice(struct astra_vec *log, const char *what, const struct astra_verify_result *v,
		       const struct astra_timing *t, size_t nv, const size_t *choice,
		       const struct contender *const *vs)
{
	size_t c, i;
	for (c = 0; c < v->nr_cases; c++) {
		struct astra_buf b = ASTRA_BUF_INIT;
		astra_buf_addf(&b, "%s: %s: %s", what, v->labels ? v->labels[c] : "?", version_name(vs, choice[c]));
		for (i = 0; i < nv; i++)
			astra_buf_addf(&b, "%s%.2f", i ? " / " : " (us: original ", t[i * v->nr_cases + c].median);
		astra_buf_adds(&b, ")");
		astra_vec_push(log, b.buf);
		astra_buf_release(&b);
	}
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

/*
 * Choose among the contenders of every round (agents/select.h).  Fills
 * versions[] (1 + nr: NULL for the original, then the contenders kept)
 * and *sel.  Returns the number of contenders kept.
 */
static size_t choose(const struct pool *p, const struct astra_verify_result *shape_of,
		     const struct contender ***kept, struct astra_select_result *sel)
{
	struct astra_select_input in;
	struct astra_timing *t;
	struct astra_vec names = ASTRA_VEC_INIT;
	double *values;
	size_t nv = 1 + p->nr, i, c;

	t = xcalloc(nv * p->nr_cases, sizeof(*t));
	for (c = 0; c < p->nr_cases; c++)
		t[c] = p->ref[c];
	for (i = 0; i < p->nr; i++)
		for (c = 0; c < p->nr_cases; c++)
			t[(i + 1) * p->nr_cases + c] = p->c[i].t[c];
	dispatch_params(shape_of, &names, &values);
	in.nr_cases = p->nr_cases;
	in.nr_versions = nv;
	in.timing = t;
	in.nr_params = names.nr;
	in.values = values;
	in.bytes = shape_of->bytes;
	*kept = NULL;
	if (astra_select(&in, sel) < 0) {
		memset(sel, 0, sizeof(*sel));
	} else if (sel->nr_kept) {
		*kept = xcalloc(sel->nr_kept, sizeof(**kept));
		for (i = 0; i < sel->nr_kept; i++)
			(*kept)[i] = &p->c[sel->kept[i] - 1];
	}
	free(t);
	free(values);
	astra_vec_clear(&names);
	return sel->nr_kept;
}

/*
 * The end of the loop: choose the variants to keep from every round's
 * contenders, judge them again together with fresh seeds, and choose again
 * from that run's times among those that passed.  Sets the verdict, the
 * variant(s), the figures and the evidence in res.  Returns 0 (res->reason
 * set) when nothing is kept, 1 when something is.
 */
static int choose_and_confirm(struct loop *l, const struct pool *p, unsigned long long seed,
			      struct astra_loop_result *res)
{
	const struct contender **kept = NULL, **alive = NULL;
	struct astra_select_result sel, fin;
	struct astra_verify_opts vo = ASTRA_VERIFY_OPTS_INIT;
	struct astra_verify_result vr;
	struct astra_variant *vs;
	struct astra_timing *t;
	struct astra_select_input in;
	struct astra_vec names = ASTRA_VEC_INIT;
	const char **vnames;
	double *values = NULL;
	size_t n, i, c, nalive = 0, big;
	int ret = 0;

	memset(&fin, 0, sizeof(fin));
	if (!res->tried) {
		/* round 0 proposed nothing: nothing failed, there was nothing to judge */
		res->verdict = ASTRA_VERDICT_NO_FASTER;
		set_reason(res, "nothing to try: no optimizer proposed a candidate (`astra-cc --explain` says why each rule declines)");
		return 0;
	}
	if (!p->nr || !res->have_evidence) {
		res->verdict = ASTRA_VERDICT_NO_FASTER;
		set_reason(res, "no candidate was correct and timed at every shape (%zu tried, %zu accepted)",
			   res->tried, res->accepted);
		return 0;
	}
	n = choose(p, &res->evidence, &kept, &sel);
	if (!n) {
		res->verdict = ASTRA_VERDICT_NO_FASTER;
		set_reason(res, "no candidate beat the original beyond the noise at any shape (%zu tried, %zu accepted)",
			   res->tried, res->accepted);
		astra_select_result_release(&sel);
		return 0;
	}
	{
		/* The log: per case the version that runs, and the original's and the kept ones' times. */
		struct astra_timing *tt = xcalloc((1 + n) * p->nr_cases, sizeof(*tt));
		size_t *at = xcalloc(p->nr_cases, sizeof(size_t)), j;
		for (c = 0; c < p->nr_cases; c++) {
			tt[c] = p->ref[c];
			for (j = 0; j < n; j++)
				if (sel.choice[c] == sel.kept[j])
					at[c] = j + 1;
		}
		for (j = 0; j < n; j++)
			for (c = 0; c < p->nr_cases; c++)
				tt[(j + 1) * p->nr_cases + c] = kept[j]->t[c];
		log_choice(&res->log, "chosen", &res->evidence, tt, 1 + n, at, kept);
		free(at);
		free(tt);
	}

	/* Confirm: the kept variants together, fresh seeds, a fresh process. */
	vs = xcalloc(n, sizeof(*vs));
	vnames = xcalloc(n, sizeof(*vnames));
	for (i = 0; i < n; i++) {
		copy_variant(&vs[i], &kept[i]->v);
		vnames[i] = vs[i].origin;
	}
	progress(l->opts, l->k, res->rounds, n, sel.speedup, "confirming");
	vo.nvcc = l->opts->nvcc;
	vo.seed = seed ^ 0xc0ffeeull;
	for (i = 0; i < p->nr_cases; i++)
		vo.ref_us += p->ref[i].median;   /* the first round's: the limits follow it (verify/sandbox.h) */
	memset(&vr, 0, sizeof(vr));
	if (judge(l->opts, l->tu, l->k, l->cl, vs, vnames, n, &vo, &vr) < 0 || !vr.ran || vr.nr_cands != n ||
	    !timed_everywhere(&vr, vr.baseline)) {
		res->verdict = ASTRA_VERDICT_NO_FASTER;
		set_reason(res, "the chosen variant%s did not confirm: %s", n == 1 ? "" : "s",
			   vr.not_run ? vr.not_run : "the confirming run did not time every shape");
		goto done;
	}
	/* Those that pass the whole protocol again, timed at every shape. */
	alive = xcalloc(n, sizeof(*alive));
	for (i = 0; i < n; i++) {
		const struct astra_cand_result *cr = &vr.cands[i];
		if (cr->verdict == ASTRA_CAND_ACCEPTED && !cr->measurement_error && timed_everywhere(&vr, cr->cases))
			alive[nalive++] = kept[i];
		else
			astra_vec_pushf(&res->log, "confirming: %s dropped: %s", vs[i].origin ? vs[i].origin : "?",
					cr->verdict != ASTRA_CAND_ACCEPTED ? (cr->reason ? cr->reason : "rejected")
					: cr->measurement_error ? "timing above the device ceiling"
					: "not timed at every shape");
	}
	/* Choose again, from the confirming run alone. */
	t = xcalloc((1 + nalive) * vr.nr_cases, sizeof(*t));
	for (c = 0; c < vr.nr_cases; c++)
		t[c] = vr.baseline[c].timing;
	for (i = 0, nalive = 0; i < n; i++)
		if (nalive < n && alive[nalive] == kept[i]) {
			for (c = 0; c < vr.nr_cases; c++)
				t[(nalive + 1) * vr.nr_cases + c] = vr.cands[i].cases[c].timing;
			nalive++;
		}
	dispatch_params(&vr, &names, &values);
	in.nr_cases = vr.nr_cases;
	in.nr_versions = 1 + nalive;
	in.timing = t;
	in.nr_params = names.nr;
	in.values = values;
	in.bytes = vr.bytes;
	if (astra_select(&in, &fin) < 0 || !fin.nr_kept) {
		res->verdict = ASTRA_VERDICT_NO_FASTER;
		set_reason(res, "the chosen variant%s did not confirm: %s", n == 1 ? "" : "s",
			   nalive ? "the confirming run found no shape where one beats the original beyond the noise"
				  : "none passed the protocol again");
		free(t);
		goto done;
	}
	log_choice(&res->log, "confirmed", &vr, t, 1 + nalive, fin.choice, alive);
	free(t);

	res->verdict = ASTRA_VERDICT_FASTER;
	res->speedup = fin.speedup;
	res->speedup_largest = fin.speedup_largest;
	big = fin.largest;
	res->baseline_us = vr.baseline[big].prof.time_us;
	res->baseline_bw_frac = vr.baseline[big].prof.bw_frac;
	res->bytes = vr.baseline[big].prof.bytes;
	{
		/* The index in vr.cands of each version of fin (0: the original). */
		size_t *cand_of = xcalloc(1 + nalive, sizeof(size_t)), j = 0;
		const struct astra_case_result *at;
		for (i = 0; i < n; i++)
			if (j < nalive && alive[j] == kept[i])
				cand_of[1 + j++] = i;
		at = fin.choice[big] ? &vr.cands[cand_of[fin.choice[big]]].cases[big] : &vr.baseline[big];
		res->best_us = at->prof.time_us;
		res->best_bw_frac = at->prof.bw_frac;
		res->dispatch = fin.dispatch;
		res->variants = xcalloc(fin.nr_kept, sizeof(*res->variants));
		res->evidence_cand = xcalloc(fin.nr_kept, sizeof(size_t));
		for (i = 0; i < fin.nr_kept; i++) {
			res->evidence_cand[i] = cand_of[fin.kept[i]];
			copy_variant(&res->variants[res->nr_variants++], &alive[fin.kept[i] - 1]->v);
		}
		/* Per case: 0 the original, i the variant variants[i - 1]. */
		res->choice = xcalloc(vr.nr_cases, sizeof(size_t));
		for (c = 0; c < vr.nr_cases; c++)
			for (i = 0; i < fin.nr_kept; i++)
				if (fin.choice[c] == fin.kept[i])
					res->choice[c] = i + 1;
		i = res->choice[big] ? res->choice[big] - 1 : 0;
		copy_variant(&res->best, &res->variants[i]);
		free(cand_of);
	}
	if (res->dispatch) {
		astra_vec_pushv(&res->params, names.v, names.nr);
		astra_vec_pushf(&res->log, "confirmed: %zu variant%s chosen per launch by %s%s, %.3fx", fin.nr_kept,
				fin.nr_kept == 1 ? "" : "s", names.nr ? names.v[0] : "?", names.nr > 1 ? ", ..." : "",
				res->speedup);
	} else {
		astra_vec_pushf(&res->log, "confirmed: %s, %.3fx", res->best.origin ? res->best.origin : "?",
				res->speedup);
	}
	ret = 1;
done:
	res->gpu_wait_seconds += vr.gpu_wait_seconds;
	if (res->have_evidence)
		astra_verify_result_release(&res->evidence);
	res->evidence = vr;
	res->have_evidence = 1;
	for (i = 0; i < n; i++)
		astra_variant_release(&vs[i]);
	free(vs);
	free(vnames);
	free(kept);
	free(alive);
	free(values);
	astra_vec_clear(&names);
	astra_select_result_release(&sel);
	astra_select_result_release(&fin);
	return ret;
}

int astra_loop_run(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		   const struct astra_loop_opts *opts, struct astra_loop_result *res)
{
	struct astra_optimizer *ops[MAX_OPTIMIZERS];
	size_t nr_ops = 0, i;
	unsigned set = optimizer_set(opts);
	int max_rounds = opts->max_rounds ? opts->max_rounds : (int)astra_config_int(ASTRA_CFG_MAX_ROUNDS);
	double budget = opts->time_budget > 0 ? opts->time_budget : (double)astra_config_int(ASTRA_CFG_TIME_BUDGET);
	size_t max_cands = opts->max_candidates ? opts->max_candidates : ASTRA_ROUND_CANDIDATES;
	struct astra_attempt *hist = NULL;
	size_t nr_hist = 0, alloc_hist = 0;
	struct astra_variant best = { 0 };
	double best_speedup = 1.0, best_bw = 0, best_large = 1.0, best_seen = 0;
	struct astra_profile baseline = { 0 };
	int have_baseline = 0, round, cc = 0;
	double ref_us = 0;           /* the original's time, summed over the cases, from the last round */
	double t0 = astra_now(), last_round = 0, round_t0;
	size_t last_n = 0;
	struct loop l = { tu, k, cl, opts };
	struct astra_hints hints = ASTRA_HINTS_INIT;
	unsigned long long seed = 0x5eed0000ull;
	struct pool pool;

	astra_loop_result_init(res);
	memset(&pool, 0, sizeof(pool));
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
	} else {
		/* No GPU to ask: the target the caller names (what --explain was told). */
		cc = opts->cc;
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
			if (!round && opts->measure_original && !opts->no_run)
				measure_original(opts, tu, k, cl, seed, res);
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
		vo.ref_us = ref_us;   /* the sandbox's limits follow the original's time (verify/sandbox.h) */
		memset(&vr, 0, sizeof(vr));
		ret = judge(opts, tu, k, cl, cands, names, n, &vo, &vr);
		res->gpu_wait_seconds += vr.gpu_wait_seconds;
		if (ret >= 0 && vr.ran)
			astra_hints_add(&hints, k, &vr);
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
		ref_us = 0;
		for (i = 0; i < vr.nr_cases; i++)
			if (vr.baseline[i].timed)
				ref_us += vr.baseline[i].timing.median;
		big = astra_profile_largest(vr.bytes, vr.nr_cases);
		baseline = vr.baseline[big].prof;
		have_baseline = 1;
		if (round == 0) {
			res->baseline_us = baseline.time_us;
			res->baseline_bw_frac = baseline.bw_frac;
			res->bytes = baseline.bytes;
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
						c->speedup_largest, !why ? "" : ok ? "; " : "; not eligible: ",
						why ? why : "");
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
		pool_add_round(&pool, &vr, cands, round);
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

	if (choose_and_confirm(&l, &pool, seed, res) == 0)
		astra_vec_pushf(&res->log, "%s", res->reason);

out:
	if (astra_hints_text(&hints, &res->hints, &res->advice))
		for (i = 0; i < res->hints.nr; i++)
			astra_vec_pushf(&res->log, "hint: %s", res->hints.v[i]);
	astra_hints_release(&hints);
	res->seconds = astra_now() - t0;
	progress(opts, k, res->rounds, res->tried, res->verdict == ASTRA_VERDICT_FASTER ? res->speedup : 1.0,
		 astra_verdict_name(res->verdict));
	astra_variant_release(&best);
	report_contenders(&pool, res);
	pool_release(&pool);
	release_history(hist, nr_hist);
	for (i = 0; i < nr_ops; i++) {
		if (ops[i]->transcript && !res->transcript)
			res->transcript = ops[i]->transcript(ops[i]);
		if (!opts->custom)
			ops[i]->free(ops[i]);
	}
	return 0;
}

const struct astra_timing *astra_loop_version_timing(const struct astra_loop_result *res, size_t i, size_t c)
{
	const struct astra_verify_result *v = &res->evidence;
	const struct astra_cand_result *cr;
	if (!res->have_evidence || c >= v->nr_cases)
		return NULL;
	if (!i)
		return v->baseline[c].timed ? &v->baseline[c].timing : NULL;
	if (!res->evidence_cand || res->evidence_cand[i - 1] >= v->nr_cands)
		return NULL;
	cr = &v->cands[res->evidence_cand[i - 1]];
	return cr->cases && cr->cases[c].timed ? &cr->cases[c].timing : NULL;
}

static double rel_spread(const struct astra_timing *t)
{
	return t && t->median > 0 ? (t->q75 - t->q25) / t->median : 0;
}

void astra_loop_fill_entry(const struct astra_loop_result *res, const struct astra_loop_opts *opts,
			   struct astra_entry *e)
{
	const struct astra_verify_result *v = res->have_evidence ? &res->evidence : NULL;
	int faster = res->verdict == ASTRA_VERDICT_FASTER && res->nr_variants;
	size_t i, j;
	unsigned set = optimizer_set(opts);

	e->verdict = res->verdict;
	free(e->reason);
	e->reason = res->reason ? xstrdup(res->reason) : NULL;
	if (faster && !res->dispatch) {
		astra_entry_set_variant(e, res->best.text, strlen(res->best.text));
		free(e->origin);
		e->origin = res->best.origin ? xstrdup(res->best.origin) : NULL;
	} else if (faster) {
		/* A variant set: format 2 (cache/manifest.h). */
		for (i = 0; i < res->nr_variants; i++)
			astra_entry_add_variant(e, res->variants[i].text, strlen(res->variants[i].text),
						res->variants[i].origin);
		for (i = 0; i < res->params.nr; i++)
			astra_entry_add_param(e, res->params.v[i]);
		for (i = 0; v && i < v->nr_cases; i++) {
			double *val = xcalloc(res->params.nr + 1, sizeof(double));
			double *med = xcalloc(res->nr_variants + 1, sizeof(double));
			double *spr = xcalloc(res->nr_variants + 1, sizeof(double));
			for (j = 0; j < res->params.nr; j++)
				astra_verify_dim(v, i, res->params.v[j], &val[j]);
			for (j = 0; j <= res->nr_variants; j++) {
				const struct astra_timing *t = astra_loop_version_timing(res, j, i);
				med[j] = t ? t->median : 0;
				spr[j] = rel_spread(t);
			}
			astra_entry_add_point(e, v->labels[i], val, (int)res->choice[i], med, spr);
			free(val);
			free(med);
			free(spr);
		}
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
			const struct astra_timing *b = astra_loop_version_timing(res, 0, i), *c;
			astra_entry_add_shape(e, v->labels[i]);
			/* Baseline and the version that runs at the shape. */
			if (!faster || !b)
				continue;
			c = astra_loop_version_timing(res, res->dispatch ? res->choice[i] : 1, i);
			if (c)
				astra_entry_add_timing(e, v->labels[i], b->median, rel_spread(b), c->median, rel_spread(c));
		}
	}
}
