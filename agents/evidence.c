/*
 * evidence.c - a cache entry's evidence record (see evidence.h).
 *
 * Separate from the loop because it is a record for people: the loop
 * decides, this keeps what the decision rested on in a form that the
 * report and anybody reading the manifest can follow without astra-cc's
 * structs.
 */
#include "autoconfig.h"

#include <math.h>
#include <string.h>

#include "agents/evidence.h"
#include "lib/json.h"

static void set_str_opt(struct astra_json *o, const char *k, const char *v)
{
	if (v)
		astra_json_set_str(o, k, v);
}

/* A finite number (JSON has no NaN or Inf: those become 0). */
static void set_num(struct astra_json *o, const char *k, double v)
{
	astra_json_set_num(o, k, isfinite(v) ? v : 0);
}

static void timing_json(struct astra_json *o, const struct astra_case_result *r)
{
	set_num(o, "median_us", r->timing.median);
	set_num(o, "q25_us", r->timing.q25);
	set_num(o, "q75_us", r->timing.q75);
	set_num(o, "min_us", r->timing.min);
	astra_json_set_num(o, "reps", r->timing.reps);
	set_num(o, "bw_frac", r->prof.bw_frac);
	set_num(o, "flop_frac", r->prof.flop_frac);
	astra_json_set_bool(o, "above_ceiling", r->above_ceiling);
}

/* The evidence of run v, with cand's figures as the variant's (cand may be NULL). */
static struct astra_json *evidence_json(const struct astra_verify_result *v, int confirmation,
					const struct astra_cand_result *cand)
{
	struct astra_json *j = astra_json_new_object(), *o, *a;
	size_t i;

	astra_json_set_str(j, "run", confirmation ? "confirmation" : "last");
	astra_json_set_num(j, "seed", (double)v->seed);
	a = astra_json_set_array(j, "distributions");
	if (v->distributions) {
		const char *p = v->distributions;
		while (*p) {
			size_t n = strcspn(p, ",");
			char *d = xstrndup(p, n);
			astra_json_push_str(a, d);
			free(d);
			p += n + (p[n] == ',');
		}
	}
	if (v->captured_loaded || v->captured_missing) {
		/* Trials with the inputs a program really launched the kernel with (doc/capture.md). */
		o = astra_json_set_object(j, "captured_data");
		astra_json_set_num(o, "loaded", (double)v->captured_loaded);
		astra_json_set_num(o, "missing", (double)v->captured_missing);
	}
	o = astra_json_set_object(j, "device");
	set_str_opt(o, "name", v->device);
	set_str_opt(o, "uuid", v->uuid);
	astra_json_set_num(o, "cc", v->cc);
	astra_json_set_num(o, "driver", v->driver);
	astra_json_set_num(o, "runtime", v->runtime);
	set_num(o, "copy_gbps", v->ceilings.copy_gbps);
	set_num(o, "fma_gflops", v->ceilings.fma_gflops);

	o = astra_json_set_object(j, "checks");
	astra_json_set_bool(o, "misaligned", v->misaligned);
	astra_json_set_bool(o, "memcheck", v->memcheck);
	astra_json_set_bool(o, "racecheck", v->racecheck);
	astra_json_set_bool(o, "reference_deterministic", v->reference_deterministic);
	astra_json_set_bool(o, "baseline_above_ceiling", v->baseline_above_ceiling);

	if (cand) {
		o = astra_json_set_object(j, "variant");
		set_str_opt(o, "name", cand->name);
		astra_json_set_str(o, "verdict", astra_cand_verdict_name(cand->verdict));
		set_str_opt(o, "check", cand->check);
		set_str_opt(o, "reason", cand->reason);
		set_num(o, "speedup", cand->speedup);
		set_num(o, "speedup_largest", cand->speedup_largest);
		astra_json_set_bool(o, "faster", cand->faster);
		astra_json_set_bool(o, "misaligned", cand->misaligned);
		astra_json_set_bool(o, "memcheck", cand->memcheck);
		astra_json_set_bool(o, "racecheck", cand->racecheck);
		astra_json_set_num(o, "regs", cand->regs);
		astra_json_set_num(o, "spills", cand->spills);
	}

	a = astra_json_set_array(j, "cases");
	for (i = 0; i < v->nr_cases; i++) {
		struct astra_json *c = astra_json_new_object();
		astra_json_set_str(c, "shape", v->labels[i] ? v->labels[i] : "");
		set_num(c, "bytes", v->bytes[i]);
		set_num(c, "flops", v->flops[i]);
		set_str_opt(c, "tolerances", v->tolerances ? v->tolerances[i] : NULL);
		if (v->baseline && v->baseline[i].timed)
			timing_json(astra_json_set_object(c, "baseline"), &v->baseline[i]);
		if (cand && cand->cases) {
			const struct astra_case_result *r = &cand->cases[i];
			struct astra_json *vo = astra_json_set_object(c, "variant");
			if (r->timed) {
				timing_json(vo, r);
				set_num(vo, "speedup", r->speedup);
				astra_json_set_str(vo, "vs_baseline", r->cmp > 0 ? "faster" : r->cmp < 0 ? "slower"
						   : "within noise");
			}
			astra_json_set_num(vo, "trials", r->trials);
			set_num(vo, "max_abs_error", r->max_abs);
			set_num(vo, "max_rel_error", r->max_rel);
			set_num(vo, "max_error_over_tolerance", r->max_ratio);
		}
		astra_json_push(a, c);
	}
	a = astra_json_set_array(j, "notes");
	if (v->notes) {
		const char *p = v->notes;
		while (*p) {
			size_t n = strcspn(p, "\n");
			char *line = xstrndup(p, n);
			if (*line)
				astra_json_push_str(a, line);
			free(line);
			p += n + (p[n] == '\n');
		}
	}
	return j;
}

struct astra_json *astra_evidence_json(const struct astra_verify_result *v, int confirmation)
{
	return evidence_json(v, confirmation, v->nr_cands == 1 ? &v->cands[0] : NULL);
}

/*
 * The confirming run's candidate that is the stored variant (with a
 * variant set, the one that runs at the largest shape: res->best): the
 * confirming run may have judged several.
 */
static const struct astra_cand_result *stored_cand(const struct astra_loop_result *res)
{
	const struct astra_verify_result *v = &res->evidence;
	size_t i;
	if (res->verdict == ASTRA_VERDICT_FASTER && res->evidence_cand && res->best.text)
		for (i = 0; i < res->nr_variants; i++)
			if (res->variants[i].text && !strcmp(res->variants[i].text, res->best.text) &&
			    res->evidence_cand[i] < v->nr_cands)
				return &v->cands[res->evidence_cand[i]];
	return v->nr_cands == 1 ? &v->cands[0] : NULL;
}

static void geometry(struct astra_json *o, const char *grid, const char *block, const char *shmem)
{
	set_str_opt(o, "grid", grid);
	set_str_opt(o, "block", block);
	set_str_opt(o, "shmem", shmem);
}

void astra_evidence_fill(struct astra_entry *e, const struct astra_loop_result *res,
			 const struct astra_kernel *k)
{
	struct astra_json *o, *a;
	size_t i;

	if (!e->extra)
		e->extra = astra_json_new_object();
	if (k) {
		o = astra_json_new_object();
		set_str_opt(o, "text", k->text);
		geometry(o, k->pragma.grid, k->pragma.block, k->pragma.shmem);
		astra_json_set(e->extra, "original", o);
	}
	if (res->verdict == ASTRA_VERDICT_FASTER && (res->best.grid || res->best.block || res->best.shmem)) {
		o = astra_json_new_object();
		geometry(o, res->best.grid, res->best.block, res->best.shmem);
		astra_json_set(e->extra, "variant_launch", o);
	}

	o = astra_json_new_object();
	astra_json_set_num(o, "rounds", res->rounds);
	astra_json_set_num(o, "tried", (double)res->tried);
	astra_json_set_num(o, "compiled", (double)res->compiled);
	astra_json_set_num(o, "accepted", (double)res->accepted);
	set_num(o, "speedup_largest", res->verdict == ASTRA_VERDICT_FASTER ? res->speedup_largest : 1.0);
	set_num(o, "baseline_us", res->baseline_us);
	set_num(o, "best_us", res->verdict == ASTRA_VERDICT_FASTER ? res->best_us : res->baseline_us);
	set_num(o, "baseline_bw_frac", res->baseline_bw_frac);
	set_num(o, "best_bw_frac", res->verdict == ASTRA_VERDICT_FASTER ? res->best_bw_frac : res->baseline_bw_frac);
	set_num(o, "gpu_wait_seconds", res->gpu_wait_seconds);
	a = astra_json_set_array(o, "log");
	for (i = 0; i < res->log.nr; i++)
		astra_json_push_str(a, res->log.v[i]);
	astra_json_set(e->extra, "loop", o);

	if (res->have_evidence) {
		astra_json_set(e->extra, "evidence",
			       evidence_json(&res->evidence, res->verdict == ASTRA_VERDICT_FASTER, stored_cand(res)));
		if (res->evidence.seed) {
			for (i = 0; i < e->nr_seeds && e->seeds[i] != (long long)res->evidence.seed; i++)
				;
			if (i == e->nr_seeds && res->evidence.seed < 1000000000000000ULL)
				astra_entry_add_seed(e, (long long)res->evidence.seed);
		}
	}
}
