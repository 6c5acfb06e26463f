/*
 * verify.c - the testing role: screen, generate, compile, run, judge
 * (see verify.h; the protocol is in doc/verify.md).
 *
 * This file owns the processes: nvcc on the generated program, the program
 * itself (in a child with a time limit, again and again until every
 * candidate has a verdict: a candidate that crashes or hangs takes the
 * process down with it, so it is rejected and the program re-runs without
 * it), and compute-sanitizer.  The program reports JSON lines; reading them
 * and turning them into verdicts with evidence is the rest of this file.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verify/profile.h"
#include "verify/verify.h"
#include "verify/verify-int.h"
#include "lib/arch.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/trust.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "lib/workspace.h"
#include "verify/device.h"
#include "verify/gpu.h"
#include "cache/store.h"
#include "front/extract.h"
#include "front/types.h"
#include "verify/harness.h"
#include "verify/sandbox.h"
#include "verify/screen.h"

const char *astra_cand_verdict_name(enum astra_cand_verdict v)
{
	switch (v) {
	case ASTRA_CAND_ACCEPTED: return "accepted";
	case ASTRA_CAND_REJECTED: return "rejected";
	default: return "not-run";
	}
}

void astra_verify_note(struct vctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	astra_buf_vaddf(&c->notes, fmt, ap);
	va_end(ap);
	astra_buf_addch(&c->notes, '\n');
}

void astra_verify_reject(struct vctx *c, size_t i, const char *check, const char *fmt, ...)
{
	struct astra_cand_result *r = &c->res->cands[i];
	va_list ap;
	if (c->c[i].done)
		return;
	c->c[i].done = 1;
	r->verdict = ASTRA_CAND_REJECTED;
	r->check = check;
	va_start(ap, fmt);
	free(r->reason);
	r->reason = xvasprintf(fmt, ap);
	va_end(ap);
	astra_trace(ASTRA_TRACE_VERIFY, "%s: rejected (%s): %s", r->name, check, r->reason);
}

/* ------------------------------------------------------------- work dir */

static int make_workdir(struct vctx *c)
{
	/* Verifications killed with SIGKILL left theirs: a day later they go. */
	astra_workspace_sweep(ASTRA_VERIFY_WORKSPACE, ASTRA_WORKSPACE_STALE);
	c->dir = astra_workspace_make(ASTRA_VERIFY_WORKSPACE);
	if (!c->dir)
		return -1;
	c->made_dir = 1;
	return 0;
}

static void remove_workdir(struct vctx *c)
{
	if (!c->dir || !c->made_dir)
		return;
	astra_workspace_remove(c->dir);
}

/* ------------------------------------------------------------- the GPU */

/* The compute capability of GPU 0, or 0 (with c->gpu_why) when there is none. */
static int probe_gpu(struct vctx *c)
{
	struct astra_gpu g;
	if (astra_gpu_probe(c->o->nvcc, &g))
		return g.cc;
	c->gpu_why = xstrdup(g.why);
	return 0;
}


/* ------------------------------------------------------------ ceilings */

static void get_ceilings(struct vctx *c)
{
	const char *dir = astra_verify_cache_dir(c);
	struct astra_cache *cache;
	struct astra_device_ceilings d;
	struct astra_ceilings ce = { 0, 0 };
	if (!c->res->device || !c->res->cc)
		return;
	cache = astra_cache_open(dir);
	memset(&d, 0, sizeof(d));
	if (astra_cache_device_get(cache, c->res->device, c->res->cc, &d) == 1) {
		ce.copy_gbps = d.copy_gbps;
		ce.fma_gflops = d.fma_gflops;
	} else {
		/* First time on this device: measure (a few seconds) and keep. */
		struct astra_vec argv = ASTRA_VEC_INIT;
		struct astra_buf out = ASTRA_BUF_INIT, err = ASTRA_BUF_INIT;
		int timed_out, rc;
		const char *p;
		astra_vec_push(&argv, c->prog);
		astra_vec_push(&argv, "--ceilings");
		rc = astra_verify_run_program(c, &argv, 0, NULL, &out, &err, &timed_out);
		for (p = out.buf; rc == 0 && p && *p;) {
			const char *eol = strchr(p, '\n');
			struct astra_json *e = astra_json_parse(p, eol ? (size_t)(eol - p) : strlen(p));
			if (astra_json_get_str(e, "event") && !strcmp(astra_json_get_str(e, "event"), "ceilings")) {
				ce.copy_gbps = astra_json_get_num(e, "copy_gbps", 0);
				ce.fma_gflops = astra_json_get_num(e, "fma_gflops", 0);
			}
			astra_json_free(e);
			p = eol ? eol + 1 : NULL;
		}
		if (ce.copy_gbps > 0 && ce.fma_gflops > 0) {
			struct astra_device_ceilings put;
			memset(&put, 0, sizeof(put));
			put.device = c->res->device;
			put.cc = c->res->cc;
			put.driver = xasprintf("%d", c->res->driver);
			put.copy_gbps = ce.copy_gbps;
			put.fma_gflops = ce.fma_gflops;
			astra_cache_device_put(cache, &put);
			free(put.driver);
			astra_verify_note(c, "measured the device's ceilings (kept in the cache): copy %.0f GB/s, FMA %.0f GFLOP/s",
					  ce.copy_gbps, ce.fma_gflops);
		} else {
			astra_verify_note(c, "the device's ceilings could not be measured: roofline fractions are not available");
		}
		astra_vec_clear(&argv);
		astra_buf_release(&out);
		astra_buf_release(&err);
	}
	astra_device_ceilings_release(&d);
	astra_cache_close(cache);
	c->res->ceilings = ce;
}

/* ------------------------------------------------------------- verdicts */

int astra_verify_reads_part(const struct astra_kernel *k)
{
	size_t i, j;
	if (k->pragma.bytes)
		return 0;
	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *p = &k->params[i];
		if (!p->is_pointer || !p->is_const || !astra_type_integer_sign(p->elem_type) || !p->name)
			continue;
		for (j = 0; j < k->pragma.nr_ranges; j++)
			if (k->pragma.ranges[j].name && !strcmp(k->pragma.ranges[j].name, p->name))
				return 1;
	}
	return 0;
}

static void judge_timing(struct vctx *c)
{
	struct astra_verify_result *r = c->res;
	size_t i, j, largest = astra_profile_largest(r->bytes, r->nr_cases);
	int reads_part = astra_verify_reads_part(c->k), overstated = 0;
	for (j = 0; j < r->nr_cases; j++) {
		if (r->baseline[j].timed) {
			r->baseline[j].above_ceiling = astra_profile_fill(&r->baseline[j].prof, &r->baseline[j].timing,
									  r->bytes[j], r->flops[j], &r->ceilings);
			r->baseline[j].prof.regs = c->ref_regs;
			r->baseline[j].prof.spills = c->ref_spills;
			if (r->baseline[j].above_ceiling)
				r->baseline_above_ceiling = 1;
		}
	}
	if (r->baseline_above_ceiling)
		astra_verify_note(c, "the original kernel runs above the device's measured ceiling by the pragma's byte counts: "
				  "buffers() overstates the memory traffic (a kernel that reads part of a buffer), so the "
				  "roofline fractions are not meaningful");
	for (i = 0; i < c->n; i++) {
		struct astra_cand_result *cr = &r->cands[i];
		double logsum = 0;
		int nt = 0;
		cr->regs = c->c[i].regs;
		cr->spills = c->c[i].spills;
		if (!cr->cases)
			continue;
		for (j = 0; j < r->nr_cases; j++) {
			struct astra_case_result *cc = &cr->cases[j];
			if (!cc->timed || !r->baseline[j].timed)
				continue;
			cc->above_ceiling = astra_profile_fill(&cc->prof, &cc->timing, r->bytes[j], r->flops[j], &r->ceilings);
			cc->prof.regs = cr->regs;
			cc->prof.spills = cr->spills;
			cc->cmp = astra_profile_compare(&r->baseline[j].timing, &cc->timing, &cc->speedup);
			if (cc->above_ceiling && !r->baseline[j].above_ceiling) {
				struct astra_profile least;
				if (reads_part && !astra_profile_fill(&least, &cc->timing, r->written[j], r->flops[j],
								      &r->ceilings))
					overstated = 1;
				else
					cr->measurement_error = 1;
			}
			if (cc->speedup > 0) {
				logsum += log(cc->speedup);
				nt++;
			}
		}
		if (nt) {
			cr->speedup = exp(logsum / nt);
			cr->speedup_largest = cr->cases[largest].speedup;
			cr->faster = cr->verdict == ASTRA_CAND_ACCEPTED && cr->cases[largest].cmp > 0 &&
				cr->speedup >= 1.0 && !cr->measurement_error;
		}
	}
	if (overstated)
		astra_verify_note(c, "candidates ran faster than the device's ceiling allows for the pragma's byte counts, but not "
				  "for the bytes they write: the kernel takes an index buffer and reads part of a buffer (a "
				  "gather), so buffers() overstate its traffic; give bytes(...) for roofline fractions that mean "
				  "something");
}

/* ------------------------------------------------------------ the entry */

/*
 * The libclang gate every proposed variant passes (front/extract.h): the
 * same name, parameters, template parameters and linkage as the original,
 * launch expressions in the kernel's parameters only.  Its reasons are
 * sorted into the verifier's check names.
 */
static int gate(struct vctx *c, size_t i, const struct astra_variant *v)
{
	struct astra_variant copy;
	struct astra_buf why = ASTRA_BUF_INIT;
	const char *check = "candidate";
	int rc;

	memset(&copy, 0, sizeof(copy));
	copy.text = v->text;
	rc = astra_extract_candidate(c->k, &copy, NULL, &why);
	if (rc == 0) {
		/* Geometry from the launch line, unless the caller gave one. */
		if (!v->grid && !v->block && !v->shmem) {
			c->c[i].own_grid = copy.grid;
			c->c[i].own_block = copy.block;
			c->c[i].own_shmem = copy.shmem;
			copy.grid = copy.block = copy.shmem = NULL;
		}
		free(copy.grid);
		free(copy.block);
		free(copy.shmem);
		astra_buf_release(&why);
		return 0;
	}
	free(copy.grid);
	free(copy.block);
	free(copy.shmem);
	astra_buf_rtrim(&why);
	if (strstr(why.buf, "launch("))
		check = "geometry";
	else if (strstr(why.buf, "parameter") || strstr(why.buf, "named") || strstr(why.buf, "extern \"C\"") ||
		 strstr(why.buf, "__restrict__"))
		check = "signature";
	else if (strstr(why.buf, "state between"))
		check = "state";
	else if (strstr(why.buf, "host function") || strstr(why.buf, "__host__ __device__ function") ||
		 strstr(why.buf, "only __device__ member functions"))
		check = "host-code";
	else if (strstr(why.buf, "no __global__"))
		check = "kernel-missing";
	astra_verify_reject(c, i, check, "%s: %s", c->res->cands[i].name, why.buf);
	astra_buf_release(&why);
	return -1;
}

static void setup_candidates(struct vctx *c, const struct astra_variant *cands, const char *const *names)
{
	size_t i, j;
	for (i = 0; i < c->n; i++) {
		struct astra_cand_result *r = &c->res->cands[i];
		const char *nm = names && names[i] ? names[i] : NULL;
		char *base = nm ? xstrdup(nm) : xasprintf("candidate-%zu", i);
		char *s;
		/* A #line file name: no quotes, backslashes or newlines; unique. */
		for (s = base; *s; s++)
			if (*s == '"' || *s == '\\' || *s == '\n' || *s == '\r')
				*s = '_';
		for (j = 0; j < i; j++)
			if (!strcmp(c->res->cands[j].name, base)) {
				char *u = xasprintf("%s#%zu", base, i);
				free(base);
				base = u;
				break;
			}
		r->name = base;
		r->verdict = ASTRA_CAND_NOT_RUN;
		r->regs = r->spills = -1;
		c->c[i].regs = c->c[i].spills = -1;
		if (!cands[i].text) {
			astra_verify_reject(c, i, "syntax", "empty candidate");
			continue;
		}
		if (c->o->screen) {
			if (astra_screen_candidate(cands[i].text, c->k->name, &c->c[i].scr) < 0) {
				if (c->c[i].scr.line)
					astra_verify_reject(c, i, c->c[i].scr.check, "%s:%u: %s", r->name, c->c[i].scr.line,
							    c->c[i].scr.reason);
				else
					astra_verify_reject(c, i, c->c[i].scr.check, "%s", c->c[i].scr.reason);
				continue;
			}
			if (gate(c, i, &cands[i]) < 0)
				continue;
		} else {
			memset(&c->c[i].scr, 0, sizeof(c->c[i].scr));
			c->c[i].scr.text = xstrdup(cands[i].text);
		}
		/* The variant's own geometry, else what its text declares. */
		if (cands[i].grid || cands[i].block || cands[i].shmem) {
			c->c[i].grid = cands[i].grid;
			c->c[i].block = cands[i].block;
			c->c[i].shmem = cands[i].shmem;
		} else if (c->c[i].own_grid || c->c[i].own_block || c->c[i].own_shmem) {
			c->c[i].grid = c->c[i].own_grid;
			c->c[i].block = c->c[i].own_block;
			c->c[i].shmem = c->c[i].own_shmem;
		} else {
			c->c[i].grid = c->c[i].scr.grid;
			c->c[i].block = c->c[i].scr.block;
			c->c[i].shmem = c->c[i].scr.shmem;
		}
	}
}

/*
 * A kernel in header kf: what the compiler has seen when it enters the
 * header, as c->prefix: the main file up to the #include line that reaches
 * the header, then each header on the way up to its own #include line
 * (tu->includes says who first included whom, and where).  The header's
 * host code may use what only the main file's earlier includes declare
 * (cuda-samples' getLastCudaError from helper_cuda.h).
 */
static void header_prefix(struct vctx *c, const char *kf)
{
	const struct astra_includes *inc = &c->tu->includes;
	struct stat st;
	size_t i, n = 0;
	long at = -1;
	int have = stat(kf, &st) == 0;

	for (i = 0; i < inc->nr && at < 0; i++) {
		const struct astra_header *h = &inc->items[i];
		if (h->text && ((have && h->dev == st.st_dev && h->ino == st.st_ino) || !strcmp(h->path, kf)))
			at = (long)i;
	}
	if (at < 0) {
		astra_verify_note(c, "%s: not found among the compile unit's includes: the test program has the header's "
				  "text alone", kf);
		return;
	}
	/* the chain's length first, then the parts outermost first */
	for (i = (size_t)at; n <= inc->nr; n++) {
		if (inc->items[i].parent < 0)
			break;
		i = (size_t)inc->items[i].parent;
	}
	if (n > inc->nr)
		return; /* a cycle: cannot be (each file once) */
	c->nr_prefix = n + 1;
	c->prefix = xcalloc(c->nr_prefix, sizeof(*c->prefix));
	for (i = (size_t)at; ; i = (size_t)inc->items[i].parent) {
		const struct astra_header *h = &inc->items[i];
		struct astra_harness_part *p = &c->prefix[n--];
		if (h->parent < 0) {
			p->path = c->tu->path;
			p->text = c->tu->text;
			p->len = h->at <= c->tu->len ? h->at : c->tu->len;
			break;
		}
		p->path = inc->items[h->parent].path;
		p->text = inc->items[h->parent].text;
		p->len = h->at <= inc->items[h->parent].len ? h->at : inc->items[h->parent].len;
	}
}

static int load_source(struct vctx *c)
{
	const char *kf = c->k->file;
	if (kf && c->tu->path && strcmp(kf, c->tu->path)) {
		/* A kernel in a header: its text after what the TU has before it. */
		if (astra_buf_read_file(&c->src, kf, 0) < 0)
			return error("cannot read %s: %s", kf, strerror(errno));
		c->src_path = kf;
		header_prefix(c, kf);
		return 0;
	}
	astra_buf_add(&c->src, c->tu->text, c->tu->len);
	c->src_path = c->tu->path ? c->tu->path : (kf ? kf : "input.cu");
	return 0;
}

int astra_verify(const struct astra_tu *tu, const struct astra_kernel *k, const struct astra_cmdline *cl,
		 const struct astra_variant *cands, const char *const *names, size_t n,
		 const struct astra_verify_opts *opts, struct astra_verify_result *res)
{
	struct vctx c;
	const char *opts_program = opts->program;
	size_t i;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.tu = tu;
	c.k = k;
	c.cl = cl;
	c.o = opts;
	c.res = res;
	c.n = n;
	c.c = xcalloc(n ? n : 1, sizeof(*c.c));
	c.seed = opts->seed ? opts->seed : 0x5eedULL;
	res->seed = c.seed;
	c.ref_regs = c.ref_spills = -1;
	astra_buf_init(&c.notes, 0);
	astra_buf_init(&c.src, 0);
	res->cands = xcalloc(n ? n : 1, sizeof(*res->cands));
	res->nr_cands = n;
	res->reference_deterministic = 1;

	if (!opts->nvcc) {
		res->not_run = xstrdup("no nvcc");
		rc = error("verify: no nvcc");
		goto out;
	}
	if (load_source(&c) < 0) {
		res->not_run = xstrdup("cannot read the kernel's source file");
		rc = -1;
		goto out;
	}
	if (make_workdir(&c) < 0) {
		res->not_run = xstrdup("cannot create a work directory");
		rc = -1;
		goto out;
	}
	setup_candidates(&c, cands, names);
	if (!opts->program && !opts->no_run && astra_getenv("ASTRA_CC_TEST_PROGRAM"))
		opts_program = astra_getenv("ASTRA_CC_TEST_PROGRAM");
	if (opts_program) {
		/* A test of astra-cc: the program is given, version i+1 is candidate i. */
		/* Absolute: the program runs in the sandbox's own directory. */
		c.prog = realpath(opts_program, NULL);
		if (!c.prog)
			c.prog = xstrdup(opts_program);
		c.map = xcalloc(n + 1, sizeof(*c.map));
		c.nmap = n;
		for (i = 0; i < n; i++) {
			c.map[i] = i;
			c.c[i].in_prog = (int)i + 1;
		}
		res->compiled = 1;
		astra_verify_run_round(&c);
		goto judged;
	}
	if (!opts->no_run)
		c.gpu_cc = probe_gpu(&c);
	astra_verify_build_flags(&c);
	if (astra_verify_compile_round(&c) < 0) {
		res->not_run = xstrdup("the test program could not be compiled (internal error)");
		rc = -1;
		goto out;
	}
	if (res->not_run)
		goto out;
	if (opts->no_run || !c.gpu_cc) {
		res->not_run = opts->no_run ? xstrdup("generated and compiled the test program; not run (as asked)")
			: xasprintf("generated and compiled the test program, but could not run it: %s",
				    c.gpu_why ? c.gpu_why : "no usable GPU");
		goto out;
	}
	astra_verify_run_round(&c);
judged:
	if (c.finished && opts->timing_only) {
		/* Measured, not judged: nobody is accepted. */
		get_ceilings(&c);
		res->misaligned = 0;
		for (i = 0; i < n; i++)
			if (c.c[i].in_prog && !c.c[i].done) {
				res->cands[i].reason = xstrdup("timed only; correctness was not checked (--timing-only)");
				c.c[i].done = 1;
			}
		judge_timing(&c);
	} else if (c.finished) {
		astra_verify_run_sanitizers(&c);
		get_ceilings(&c);
		for (i = 0; i < n; i++)
			if (c.c[i].in_prog && !c.c[i].done) {
				res->cands[i].verdict = ASTRA_CAND_ACCEPTED;
				res->cands[i].misaligned = res->misaligned;
				c.c[i].done = 1;
			}
		judge_timing(&c);
	}
out:
	for (i = 0; i < n; i++)
		if (!c.c[i].done) {
			res->cands[i].verdict = ASTRA_CAND_NOT_RUN;
			if (!res->cands[i].reason)
				res->cands[i].reason = xstrdup(res->not_run ? res->not_run : "not run");
		}
	if (c.notes.len) {
		astra_buf_rtrim(&c.notes);
		res->notes = astra_buf_detach(&c.notes, NULL);
	}
	if (opts->keep && c.dir) {
		res->workdir = c.dir;
		c.dir = NULL;
	} else {
		remove_workdir(&c);
	}
	for (i = 0; i < n; i++) {
		astra_screened_release(&c.c[i].scr);
		free(c.c[i].own_grid);
		free(c.c[i].own_block);
		free(c.c[i].own_shmem);
	}
	free(c.c);
	free(c.dir);
	free(c.gpu_why);
	free(c.stop_why);
	free(c.prog);
	free(c.map);
	astra_vec_clear(&c.flags);
	astra_buf_release(&c.src);
	free(c.prefix);
	astra_buf_release(&c.notes);
	return rc;
}

void astra_verify_result_release(struct astra_verify_result *res)
{
	size_t i;
	for (i = 0; i < res->nr_cands; i++) {
		free(res->cands[i].name);
		free(res->cands[i].reason);
		free(res->cands[i].compile_log);
		free(res->cands[i].mismatch_output);
		free(res->cands[i].cases);
	}
	free(res->cands);
	for (i = 0; i < res->nr_cases; i++) {
		size_t j;
		free(res->labels[i]);
		free(res->tolerances ? res->tolerances[i] : NULL);
		for (j = 0; res->dims && j < res->dims[i].nr; j++)
			free(res->dims[i].names[j]);
		if (res->dims) {
			free(res->dims[i].names);
			free(res->dims[i].values);
		}
	}
	free(res->dims);
	free(res->labels);
	free(res->tolerances);
	free(res->distributions);
	free(res->bytes);
	free(res->written);
	free(res->flops);
	free(res->baseline);
	free(res->not_run);
	free(res->device);
	free(res->uuid);
	free(res->notes);
	free(res->workdir);
	free(res->reproduce);
	memset(res, 0, sizeof(*res));
}

int astra_verify_try_compile(const struct astra_tu *tu, const struct astra_kernel *k,
			     const struct astra_cmdline *cl, const char *nvcc, const struct astra_variant *v,
			     struct astra_buf *errors)
{
	struct astra_verify_opts o = ASTRA_VERIFY_OPTS_INIT;
	struct astra_verify_result r;
	int rc;
	o.nvcc = nvcc;
	o.no_run = 1;
	rc = astra_verify(tu, k, cl, v, NULL, 1, &o, &r);
	if (rc == 0 && r.compiled && r.cands[0].verdict != ASTRA_CAND_REJECTED) {
		astra_verify_result_release(&r);
		return 0;
	}
	if (r.cands && r.cands[0].reason)
		astra_buf_addf(errors, "%s\n", r.cands[0].reason);
	if (r.cands && r.cands[0].compile_log)
		astra_buf_addf(errors, "%s\n", r.cands[0].compile_log);
	else if (r.not_run)
		astra_buf_addf(errors, "%s\n", r.not_run);
	astra_verify_result_release(&r);
	return -1;
}

/* ----------------------------------------------------------------- JSON */

static void json_case(struct astra_json *o, const struct astra_case_result *r, int cand)
{
	if (cand || r->trials) {
		astra_json_set_num(o, "trials", r->trials);
		astra_json_set_num(o, "max_abs_error", r->max_abs);
		astra_json_set_num(o, "max_rel_error", r->max_rel);
		astra_json_set_num(o, "max_error_over_tolerance", r->max_ratio);
	}
	if (!r->timed)
		return;
	astra_json_set_num(o, "median_us", r->timing.median);
	astra_json_set_num(o, "q25_us", r->timing.q25);
	astra_json_set_num(o, "q75_us", r->timing.q75);
	astra_json_set_num(o, "min_us", r->timing.min);
	astra_json_set_num(o, "reps", r->timing.reps);
	astra_json_set_num(o, "spread", r->prof.spread);
	astra_json_set_num(o, "bw_frac", r->prof.bw_frac);
	astra_json_set_num(o, "flop_frac", r->prof.flop_frac);
	astra_json_set_bool(o, "above_ceiling", r->above_ceiling);
	if (cand) {
		astra_json_set_num(o, "speedup", r->speedup);
		astra_json_set_str(o, "vs_baseline", r->cmp > 0 ? "faster" : r->cmp < 0 ? "slower" : "within noise");
	}
}

static void json_str_or_null(struct astra_json *o, const char *k, const char *v)
{
	if (v)
		astra_json_set_str(o, k, v);
	else
		astra_json_set_null(o, k);
}

char *astra_verify_result_json(const struct astra_verify_result *res, int pretty)
{
	struct astra_json *j = astra_json_new_object(), *d, *ch, *arr, *o;
	char *text;
	size_t i, k;

	astra_json_set_num(j, "format", 1);
	astra_json_set_bool(j, "compiled", res->compiled);
	astra_json_set_bool(j, "ran", res->ran);
	json_str_or_null(j, "not_run", res->not_run);
	json_str_or_null(j, "setup_check", res->setup_check);
	d = astra_json_set_object(j, "device");
	json_str_or_null(d, "name", res->device);
	json_str_or_null(d, "uuid", res->uuid);
	astra_json_set_num(d, "cc", res->cc);
	astra_json_set_num(d, "driver", res->driver);
	astra_json_set_num(d, "runtime", res->runtime);
	astra_json_set_num(d, "copy_gbps", res->ceilings.copy_gbps);
	astra_json_set_num(d, "fma_gflops", res->ceilings.fma_gflops);
	ch = astra_json_set_object(j, "checks");
	astra_json_set_bool(ch, "misaligned", res->misaligned);
	astra_json_set_bool(ch, "memcheck", res->memcheck);
	astra_json_set_bool(ch, "racecheck", res->racecheck);
	astra_json_set_bool(ch, "reference_deterministic", res->reference_deterministic);
	astra_json_set_num(ch, "seed", (double)res->seed);
	json_str_or_null(ch, "distributions", res->distributions);
	arr = astra_json_set_array(j, "cases");
	for (i = 0; i < res->nr_cases; i++) {
		o = astra_json_new_object();
		astra_json_set_str(o, "label", res->labels[i]);
		if (res->dims && res->dims[i].nr) {
			struct astra_json *dj = astra_json_set_object(o, "dims");
			size_t di;
			for (di = 0; di < res->dims[i].nr; di++)
				astra_json_set_num(dj, res->dims[i].names[di], res->dims[i].values[di]);
		}
		astra_json_set_num(o, "bytes", res->bytes[i]);
		astra_json_set_num(o, "flops", res->flops[i]);
		json_str_or_null(o, "tolerances", res->tolerances ? res->tolerances[i] : NULL);
		json_case(astra_json_set_object(o, "baseline"), &res->baseline[i], 0);
		astra_json_push(arr, o);
	}
	astra_json_set_bool(j, "baseline_above_ceiling", res->baseline_above_ceiling);
	arr = astra_json_set_array(j, "candidates");
	for (i = 0; i < res->nr_cands; i++) {
		const struct astra_cand_result *c = &res->cands[i];
		struct astra_json *cases;
		o = astra_json_new_object();
		astra_json_set_str(o, "name", c->name);
		astra_json_set_str(o, "verdict", astra_cand_verdict_name(c->verdict));
		json_str_or_null(o, "check", c->check);
		json_str_or_null(o, "reason", c->reason);
		if (c->compile_log)
			astra_json_set_str(o, "compile_log", c->compile_log);
		astra_json_set_num(o, "speedup", c->speedup);
		astra_json_set_num(o, "speedup_largest", c->speedup_largest);
		astra_json_set_bool(o, "faster", c->faster);
		astra_json_set_bool(o, "measurement_error", c->measurement_error);
		astra_json_set_bool(o, "misaligned", c->misaligned);
		astra_json_set_bool(o, "memcheck", c->memcheck);
		astra_json_set_bool(o, "racecheck", c->racecheck);
		astra_json_set_num(o, "regs", c->regs);
		astra_json_set_num(o, "spills", c->spills);
		cases = astra_json_set_array(o, "cases");
		for (k = 0; c->cases && k < res->nr_cases; k++) {
			struct astra_json *x = astra_json_new_object();
			json_case(x, &c->cases[k], 1);
			astra_json_push(cases, x);
		}
		astra_json_push(arr, o);
	}
	arr = astra_json_set_array(j, "notes");
	if (res->notes) {
		const char *p = res->notes;
		while (p && *p) {
			const char *e = strchr(p, '\n');
			char *line = xstrndup(p, e ? (size_t)(e - p) : strlen(p));
			astra_json_push_str(arr, line);
			free(line);
			p = e ? e + 1 : NULL;
		}
	}
	astra_json_set_num(j, "program_runs", res->program_runs);
	astra_json_set_num(j, "compile_seconds", res->compile_seconds);
	astra_json_set_num(j, "run_seconds", res->run_seconds);
	{
		static const char *const names[] = { "check", "timing", "post", "misaligned" };
		struct astra_json *ph = astra_json_set_object(j, "phase_seconds");
		size_t p;
		for (p = 0; p < ARRAY_SIZE(names); p++)
			astra_json_set_num(ph, names[p], res->phase_seconds[p]);
		astra_json_set_num(ph, "sanitizers", res->sanitizer_seconds);
	}
	astra_json_set_num(j, "gpu_wait_seconds", res->gpu_wait_seconds);
	json_str_or_null(j, "reproduce", res->reproduce);
	json_str_or_null(j, "workdir", res->workdir);
	text = astra_json_print(j, pretty);
	astra_json_free(j);
	return text;
}
