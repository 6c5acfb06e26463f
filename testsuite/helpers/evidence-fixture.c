/*
 * evidence-fixture.c - a made-up but consistent loop result (see
 * evidence-fixture.h).
 */
#include "autoconfig.h"

#include <math.h>
#include <string.h>

#include "agents/evidence.h"
#include "agents/loop.h"
#include "lib/util.h"
#include "evidence-fixture.h"

static const struct {
	const char *shape;
	double bytes, baseline_us, gain;  /* gain: the fraction of the speedup this shape gets */
} shapes[] = {
	{ "rows=4096 cols=4096", 100663296, 126.1, 1.0 },
	{ "rows=1024 cols=5120", 31457280, 45.2, 0.9 },
	{ "rows=7 cols=5120", 215040, 5.1, 0.3 },
	{ "rows=1 cols=1", 24, 3.9, 0.0 },
};

#define NC ARRAY_SIZE(shapes)
#define COPY_GBPS 3000.0

static void fill_case(struct astra_case_result *r, double bytes, double us, double spread)
{
	memset(r, 0, sizeof(*r));
	r->timed = 1;
	r->timing.median = us;
	r->timing.q25 = us * (1 - spread);
	r->timing.q75 = us * (1 + spread);
	r->timing.min = us * (1 - 2 * spread);
	r->timing.reps = 300;
	r->prof.time_us = us;
	r->prof.spread = spread;
	r->prof.bytes = bytes;
	r->prof.bw_frac = bytes / us / 1e3 / COPY_GBPS;
	r->prof.regs = r->prof.spills = -1;
}

void fixture_fill(struct astra_entry *e, const struct fixture *f)
{
	struct astra_loop_opts lo = { 0 };
	struct astra_loop_result res;
	struct astra_verify_result *v = &res.evidence;
	struct astra_kernel k;
	int faster = f->verdict == ASTRA_VERDICT_FASTER;
	double lg = 0;
	size_t i, ncand = faster ? 1 : 3;

	astra_loop_result_init(&res);
	res.verdict = f->verdict;
	res.have_evidence = 1;
	memset(v, 0, sizeof(*v));
	v->ran = v->compiled = 1;
	v->device = xstrdup("NVIDIA H100 80GB HBM3");
	v->uuid = xstrdup("GPU-00000000-0000-0000-0000-000000000000");
	v->cc = 90;
	v->driver = 13000;
	v->runtime = 13000;
	v->ceilings.copy_gbps = COPY_GBPS;
	v->ceilings.fma_gflops = 51000;
	v->misaligned = 1;
	v->memcheck = v->racecheck = 1;
	v->reference_deterministic = 1;
	v->seed = 0x5eed0000ULL ^ 0xc0ffeeULL;
	v->distributions = xstrdup("uniform,normal,wide,uniform");
	v->notes = xstrdup("the original kernel faults on nothing: misaligned pointers were tried\n");
	v->nr_cases = NC;
	v->labels = xcalloc(NC, sizeof(char *));
	v->tolerances = xcalloc(NC, sizeof(char *));
	v->bytes = xcalloc(NC, sizeof(double));
	v->flops = xcalloc(NC, sizeof(double));
	v->baseline = xcalloc(NC, sizeof(*v->baseline));
	v->nr_cands = ncand;
	v->cands = xcalloc(ncand, sizeof(*v->cands));
	for (i = 0; i < ncand; i++) {
		struct astra_cand_result *c = &v->cands[i];
		c->name = xasprintf("candidate-%zu", i);
		c->verdict = ASTRA_CAND_ACCEPTED;
		c->memcheck = c->racecheck = c->misaligned = 1;
		c->regs = 32;
		c->spills = 0;
		c->cases = xcalloc(NC, sizeof(*c->cases));
	}
	for (i = 0; i < NC; i++) {
		double sp = faster ? 1 + (f->speedup - 1) * shapes[i].gain : 1.0;
		v->labels[i] = xasprintf("%s%s", f->shape_prefix ? f->shape_prefix : "", shapes[i].shape);
		v->tolerances[i] = xstrdup("out bfloat16 rtol=0.02 atol=0.02; residual bfloat16 rtol=0.02 atol=0.02");
		v->bytes[i] = shapes[i].bytes;
		v->flops[i] = shapes[i].bytes / 2;
		fill_case(&v->baseline[i], shapes[i].bytes, shapes[i].baseline_us, 0.01 + 0.02 * (double)i);
		if (faster) {
			struct astra_case_result *r = &v->cands[0].cases[i];
			fill_case(r, shapes[i].bytes, shapes[i].baseline_us / sp, 0.012 + 0.02 * (double)i);
			r->speedup = sp;
			r->cmp = shapes[i].gain > 0 ? 1 : 0;
			r->trials = 6;
			r->max_abs = 0.0039 * (double)(i + 1);
			r->max_rel = 0.0078;
			r->max_ratio = 0.2 + 0.1 * (double)i;
			lg += log(sp);
		}
	}
	if (faster) {
		v->cands[0].speedup = exp(lg / (double)NC);
		v->cands[0].speedup_largest = f->speedup;
		v->cands[0].faster = 1;
		res.speedup = v->cands[0].speedup;
		res.speedup_largest = f->speedup;
		res.best.text = xstrdup(f->variant ? f->variant : "__global__ void k() {}\n");
		res.best.origin = xstrdup(f->origin ? f->origin : "rules: vectorize");
		res.best.grid = f->grid ? xstrdup(f->grid) : NULL;
		res.best.block = f->block ? xstrdup(f->block) : NULL;
		/* The loop keeps the variant it stores among its kept versions too (one: no dispatch). */
		res.variants = xcalloc(1, sizeof(*res.variants));
		res.variants[0].text = xstrdup(res.best.text);
		res.variants[0].origin = xstrdup(res.best.origin);
		res.nr_variants = 1;
		res.evidence_cand = xcalloc(1, sizeof(*res.evidence_cand)); /* candidate 0 of the evidence */
		res.best_us = v->cands[0].cases[0].timing.median;
		res.best_bw_frac = v->cands[0].cases[0].prof.bw_frac;
	} else {
		res.reason = xstrdup("no candidate was correct and faster at every shape (3 tried, 3 accepted)");
	}
	res.baseline_us = v->baseline[0].timing.median;
	res.baseline_bw_frac = v->baseline[0].prof.bw_frac;
	res.rounds = 2;
	res.tried = 18;
	res.compiled = 16;
	res.accepted = 11;
	res.seconds = 93.4;
	astra_vec_pushf(&res.log, "round 0: 12 candidates: compile 21.0 s, runs 30.2 s");
	astra_vec_pushf(&res.log, "round 0: rules: warp-reduce: accepted, 1.400x (1.600x at the largest shape)");
	astra_vec_pushf(&res.log, "round 0: rules: vectorize: rejected (misaligned): faults on a pointer one element "
			"past a 16-byte boundary");
	astra_vec_pushf(&res.log, "round 1: 6 candidates: compile 12.3 s, runs 18.9 s");
	astra_vec_pushf(&res.log, "stopped: round 1 brought no gain");
	if (faster)
		astra_vec_pushf(&res.log, "confirmed: %s, %.3fx", res.best.origin, res.speedup);

	lo.optimizers = f->origin && astra_starts_with(f->origin, "llm") ? ASTRA_OPTIMIZERS_LLM : ASTRA_OPTIMIZERS_RULES;
	astra_loop_fill_entry(&res, &lo, e);
	memset(&k, 0, sizeof(k));
	k.name = e->kernel;
	k.text = (char *)f->original;
	k.pragma.grid = (char *)"rows";
	k.pragma.block = (char *)"256";
	astra_evidence_fill(e, &res, f->original ? &k : NULL);
	astra_loop_result_release(&res);
}
