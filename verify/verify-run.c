/*
 * verify-run.c - the testing role's run step (verify-int.h): the test
 * program run in a child with a time limit until every candidate has a
 * verdict, its JSON events read into verdicts and evidence, the GPU lock,
 * compute-sanitizer.
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

/* ---------------------------------------------------------------- running */

static const char *phase_names(unsigned ph, struct astra_buf *b)
{
	astra_buf_reset(b);
	if (ph & PH_CHECK)
		astra_buf_adds(b, "check,");
	if (ph & PH_TIMING)
		astra_buf_adds(b, "timing,");
	if (ph & PH_POST)
		astra_buf_adds(b, "post,");
	if (ph & PH_MISALIGNED)
		astra_buf_adds(b, "misaligned,");
	if (b->len)
		astra_buf_setlen(b, b->len - 1);
	return b->buf;
}

static unsigned phase_bit(const char *s)
{
	if (!s)
		return 0;
	if (!strcmp(s, "check"))
		return PH_CHECK;
	if (!strcmp(s, "timing"))
		return PH_TIMING;
	if (!strcmp(s, "post"))
		return PH_POST;
	if (!strcmp(s, "misaligned"))
		return PH_MISALIGNED;
	return 0;
}

/* PH_CHECK .. PH_MISALIGNED as 0 .. 3 (struct astra_verify_result's phase_seconds). */
static size_t phase_index(unsigned bit)
{
	size_t i = 0;
	while (bit > 1) {
		bit >>= 1;
		i++;
	}
	return i;
}

/* The candidate index of program version v, or -1 (the reference, or unknown). */
static long cand_of(const struct vctx *c, double v)
{
	long vi = (long)v;
	if (vi < 1 || (size_t)vi > c->nmap)
		return -1;
	return (long)c->map[vi - 1];
}

static void ensure_cases(struct vctx *c, size_t n)
{
	size_t i;
	if (c->res->nr_cases >= n)
		return;
	c->res->labels = xrealloc(c->res->labels, n * sizeof(char *));
	c->res->bytes = xrealloc(c->res->bytes, n * sizeof(double));
	c->res->flops = xrealloc(c->res->flops, n * sizeof(double));
	c->res->written = xrealloc(c->res->written, n * sizeof(double));
	c->res->baseline = xrealloc(c->res->baseline, n * sizeof(struct astra_case_result));
	c->res->dims = xrealloc(c->res->dims, n * sizeof(struct astra_case_dims));
	c->res->tolerances = xrealloc(c->res->tolerances, n * sizeof(char *));
	for (i = c->res->nr_cases; i < n; i++) {
		memset(&c->res->dims[i], 0, sizeof(struct astra_case_dims));
		c->res->labels[i] = xstrdup("");
		c->res->tolerances[i] = NULL;
		c->res->bytes[i] = c->res->flops[i] = c->res->written[i] = 0;
		memset(&c->res->baseline[i], 0, sizeof(struct astra_case_result));
		c->res->baseline[i].prof.regs = c->res->baseline[i].prof.spills = -1;
	}
	for (i = 0; i < c->n; i++) {
		struct astra_cand_result *r = &c->res->cands[i];
		size_t j;
		r->cases = xrealloc(r->cases, n * sizeof(struct astra_case_result));
		for (j = c->res->nr_cases; j < n; j++) {
			memset(&r->cases[j], 0, sizeof(struct astra_case_result));
			r->cases[j].prof.regs = r->cases[j].prof.spills = -1;
		}
	}
	c->res->nr_cases = n;
}

static void set_dim(struct astra_case_dims *d, const char *name, double v)
{
	size_t i;
	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->names[i], name)) {
			d->values[i] = v;
			return;
		}
	d->names = xrealloc(d->names, (d->nr + 1) * sizeof(char *));
	d->values = xrealloc(d->values, (d->nr + 1) * sizeof(double));
	d->names[d->nr] = xstrdup(name);
	d->values[d->nr++] = v;
}

int astra_verify_dim(const struct astra_verify_result *res, size_t ci, const char *name, double *value)
{
	size_t i;
	if (!res->dims || ci >= res->nr_cases)
		return 0;
	for (i = 0; i < res->dims[ci].nr; i++)
		if (!strcmp(res->dims[ci].names[i], name)) {
			*value = res->dims[ci].values[i];
			return 1;
		}
	return 0;
}

static struct astra_case_result *case_of(struct vctx *c, long cand, double ci)
{
	long i = (long)ci;
	if (i < 0 || (size_t)i >= c->res->nr_cases)
		return NULL;
	return cand < 0 ? &c->res->baseline[i] : &c->res->cands[cand].cases[i];
}

static char *case_desc(struct vctx *c, const struct astra_json *e)
{
	long ci = (long)astra_json_get_num(e, "case", -1);
	const char *label = ci >= 0 && (size_t)ci < c->res->nr_cases ? c->res->labels[ci] : "?";
	const char *phase = astra_json_get_str(e, "phase");
	struct astra_buf b = ASTRA_BUF_INIT;
	astra_buf_addf(&b, "case %ld (%s)", ci, label);
	if (phase)
		astra_buf_addf(&b, ", %s phase", phase);
	if (astra_json_get(e, "trial") && astra_json_get_num(e, "trial", -1) >= 0)
		astra_buf_addf(&b, ", trial %d", (int)astra_json_get_num(e, "trial", 0));
	if (astra_json_get_str(e, "dist"))
		astra_buf_addf(&b, ": %s inputs, outputs %s", astra_json_get_str(e, "dist"),
			       astra_json_get_bool(e, "poison", 0) ? "poisoned" : "pre-filled with random data");
	if (astra_json_get_num(e, "misalign", 0) > 0)
		astra_buf_addf(&b, ", %s base pointers off by one element",
			       astra_json_get_num(e, "misalign", 0) == 1 ? "all" : "every other");
	if (astra_json_get(e, "dist"))
		astra_buf_addf(&b, "; --seed %llu reproduces it", c->seed);
	return astra_buf_detach(&b, NULL);
}

static const char *jstr(const struct astra_json *e, const char *k)
{
	const char *s = astra_json_get_str(e, k);
	return s ? s : "?";
}

/* A value from the program: numbers, or "nan"/"inf" as strings. */
static void add_value(struct astra_buf *b, const struct astra_json *e, const char *k)
{
	const struct astra_json *v = astra_json_get(e, k);
	if (astra_json_is_string(v))
		astra_buf_adds(b, astra_json_str(v));
	else
		astra_buf_addf(b, "%.9g", astra_json_num(v, 0));
}

/* Turn a "fail" event into a rejection with its evidence. */
static void on_fail(struct vctx *c, const struct astra_json *e)
{
	long ci = cand_of(c, astra_json_get_num(e, "version", -1));
	const char *check = jstr(e, "check");
	char *where = case_desc(c, e);
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *buf = jstr(e, "buffer");
	long long elem = (long long)astra_json_get_num(e, "element", -1);
	long long lanes = (long long)astra_json_get_num(e, "lanes", 0);
	long long bad = (long long)astra_json_get_num(e, "bad", 0);
	static const char *const checks[] = { "mismatch", "unwritten", "nonfinite", "extra-write", "stale",
					      "nondeterministic", "input-modified", "out-of-bounds", "launch" };
	const char *stable = "mismatch";
	size_t i;

	if (ci < 0)
		return;
	for (i = 0; i < ARRAY_SIZE(checks); i++)
		if (!strcmp(check, checks[i]))
			stable = checks[i];

	if (!strcmp(check, "input-modified")) {
		astra_buf_addf(&b, "modifies input `%s` (first change at element %lld)", buf, elem);
	} else if (!strcmp(check, "out-of-bounds")) {
		astra_buf_addf(&b, "writes outside `%s[%.0f]`, at element %lld", buf,
			       astra_json_get_num(e, "count", 0), elem);
	} else if (!strcmp(check, "launch")) {
		astra_buf_addf(&b, "cannot be launched: %s (%s)", jstr(e, "error"), jstr(e, "message"));
	} else if (!strcmp(check, "nondeterministic")) {
		astra_buf_addf(&b, "two runs on the same inputs (different buffers) differ in `%s`: %lld of %lld "
			       "values, first at element %lld: ", buf, bad, lanes, elem);
		add_value(&b, e, "expected");
		astra_buf_adds(&b, " then ");
		add_value(&b, e, "got");
		astra_buf_adds(&b, astra_json_get_bool(e, "reference_deterministic", 1)
			       ? " (the original is bit-for-bit deterministic: a race, or uninitialized memory?)"
			       : " (beyond the tolerance; the original itself varies)");
	} else {
		static const struct { const char *check, *what; } say[] = {
			{ "unwritten", "values left unwritten (they still hold what was there before the call)" },
			{ "nonfinite", "NaN or Inf values where the original's are finite" },
			{ "extra-write", "values written where the original leaves the buffer untouched" },
			{ "stale", "values that repeat the previous call's results (kept between calls?)" },
			{ "mismatch", "values differ beyond the tolerance" },
		};
		const char *what = say[4].what;
		struct astra_cand_result *r = &c->res->cands[ci];
		for (i = 0; i < ARRAY_SIZE(say); i++)
			if (!strcmp(check, say[i].check))
				what = say[i].what;
		if (!strcmp(check, "mismatch") && !c->c[ci].done) { /* the first failure is the one reported */
			r->mismatch_output = xstrdup(buf);
			r->mismatch_ratio = astra_json_get_num(e, "max_ratio", 0);
			r->mismatch_rtol = astra_json_get_num(e, "rtol", 0);
			r->mismatch_atol = astra_json_get_num(e, "atol", 0);
		}
		astra_buf_addf(&b, "`%s`: %lld of %lld %s; first at %s[%lld]: expected ", buf, bad, lanes, what, buf,
			       elem);
		add_value(&b, e, "expected");
		astra_buf_adds(&b, ", got ");
		add_value(&b, e, "got");
		astra_buf_addf(&b, "; largest error %.3g (%.3g relative, %.3g x the tolerance rtol=%.3g atol=%.3g x rms %.3g)",
			       astra_json_get_num(e, "max_abs", 0), astra_json_get_num(e, "max_rel", 0),
			       astra_json_get_num(e, "max_ratio", 0), astra_json_get_num(e, "rtol", 0),
			       astra_json_get_num(e, "atol", 0), astra_json_get_num(e, "scale", 1));
	}
	astra_buf_addf(&b, " [%s]", where);
	astra_verify_reject(c, (size_t)ci, stable, "%s", b.buf);
	free(where);
	astra_buf_release(&b);
}

static void on_time(struct vctx *c, const struct astra_json *e)
{
	double v = astra_json_get_num(e, "version", -1);
	long ci = v == 0 ? -1 : cand_of(c, v);
	struct astra_case_result *r;
	if (v != 0 && ci < 0)
		return;
	r = case_of(c, ci, astra_json_get_num(e, "case", -1));
	if (!r)
		return;
	r->timed = 1;
	r->timing.median = astra_json_get_num(e, "median_us", 0);
	r->timing.q25 = astra_json_get_num(e, "q25_us", 0);
	r->timing.q75 = astra_json_get_num(e, "q75_us", 0);
	r->timing.min = astra_json_get_num(e, "min_us", 0);
	r->timing.reps = (int)astra_json_get_num(e, "reps", 0);
}

static void on_passed(struct vctx *c, const struct astra_json *e)
{
	long ci = cand_of(c, astra_json_get_num(e, "version", -1));
	struct astra_case_result *r;
	if (ci < 0)
		return;
	r = case_of(c, ci, astra_json_get_num(e, "case", -1));
	if (!r)
		return;
	r->trials += (int)astra_json_get_num(e, "trials", 0);
	if (astra_json_get_num(e, "max_abs", 0) > r->max_abs)
		r->max_abs = astra_json_get_num(e, "max_abs", 0);
	if (astra_json_get_num(e, "max_rel", 0) > r->max_rel)
		r->max_rel = astra_json_get_num(e, "max_rel", 0);
	if (astra_json_get_num(e, "max_ratio", 0) > r->max_ratio)
		r->max_ratio = astra_json_get_num(e, "max_ratio", 0);
}

static void on_device(struct vctx *c, const struct astra_json *e)
{
	struct astra_verify_result *r = c->res;
	if (r->device)
		return;
	r->ran = 1;
	r->device = xstrdup(jstr(e, "name"));
	r->uuid = xstrdup(jstr(e, "uuid"));
	r->cc = (int)astra_json_get_num(e, "cc", 0);
	r->driver = (int)astra_json_get_num(e, "driver", 0);
	r->runtime = (int)astra_json_get_num(e, "runtime", 0);
}

enum outcome { RUN_DONE, RUN_AGAIN, RUN_STOP };

/*
 * Read the events of one run.  A crash or hang names the version that was
 * running: a candidate is rejected and the caller runs again without it;
 * the reference crashing on misaligned pointers means the original needs
 * aligned ones (noted, phase dropped); anything else about the reference
 * stops the verification (res->not_run).
 */
static enum outcome read_events(struct vctx *c, const struct astra_buf *out, int rc, unsigned *todo,
				const char *tool)
{
	const char *p = out->buf;
	enum outcome oc = RUN_STOP;
	int done = 0;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		struct astra_json *e = astra_json_parse(p, len);
		const char *ev = astra_json_get_str(e, "event");
		p = eol ? eol + 1 : NULL;
		if (!ev) {
			astra_json_free(e);
			continue;
		}
		if (!strcmp(ev, "device")) {
			on_device(c, e);
		} else if (!strcmp(ev, "case")) {
			size_t ci = (size_t)astra_json_get_num(e, "case", 0);
			ensure_cases(c, ci + 1);
			free(c->res->labels[ci]);
			c->res->labels[ci] = xstrdup(jstr(e, "label"));
			/*
			 * Every run announces its cases, but only a run with checks
			 * probes which outputs are read ("io" below): a later
			 * timing-only run must not put the buffers' sizes back.
			 */
			if (!c->res->bytes[ci]) {
				c->res->bytes[ci] = astra_json_get_num(e, "input_bytes", 0) +
					astra_json_get_num(e, "output_bytes", 0);
				c->res->written[ci] = astra_json_get_num(e, "output_bytes", 0);
			}
			c->res->flops[ci] = astra_json_get_num(e, "flops", 0);
			if (astra_json_get_str(e, "tolerances")) {
				free(c->res->tolerances[ci]);
				c->res->tolerances[ci] = xstrdup(astra_json_get_str(e, "tolerances"));
			}
		} else if (!strcmp(ev, "data")) {
			if (astra_json_get_bool(e, "loaded", 0))
				c->res->captured_loaded++;
			else
				c->res->captured_missing++;
		} else if (!strcmp(ev, "dim")) {
			/* Every run announces them: keep one value per name. */
			long ci = (long)astra_json_get_num(e, "case", -1);
			const char *name = astra_json_get_str(e, "name");
			const struct astra_json *v = astra_json_get(e, "value");
			if (ci >= 0 && (size_t)ci < c->res->nr_cases && name && astra_json_is_number(v))
				set_dim(&c->res->dims[ci], name, astra_json_num(v, 0));
		} else if (!strcmp(ev, "start")) {
			if (astra_json_get_str(e, "distributions") && !c->res->distributions)
				c->res->distributions = xstrdup(astra_json_get_str(e, "distributions"));
		} else if (!strcmp(ev, "io")) {
			/* What the original really reads and writes (in-place outputs twice). */
			long ci = (long)astra_json_get_num(e, "case", -1);
			if (ci >= 0 && (size_t)ci < c->res->nr_cases) {
				c->res->bytes[ci] = astra_json_get_num(e, "read_bytes", 0) +
					astra_json_get_num(e, "written_bytes", 0);
				c->res->written[ci] = astra_json_get_num(e, "written_bytes", 0);
			}
		} else if (!strcmp(ev, "fail")) {
			on_fail(c, e);
		} else if (!strcmp(ev, "time")) {
			on_time(c, e);
		} else if (!strcmp(ev, "passed")) {
			on_passed(c, e);
		} else if (!strcmp(ev, "phase-done")) {
			unsigned bit = phase_bit(astra_json_get_str(e, "phase"));
			c->phases_done |= bit;
			*todo &= ~bit;
			if (bit && !tool)
				c->res->phase_seconds[phase_index(bit)] += astra_json_get_num(e, "seconds", 0);
		} else if (!strcmp(ev, "nondeterministic-reference")) {
			if (c->res->reference_deterministic) {
				c->res->reference_deterministic = 0;
				astra_verify_note(c, "the original kernel is not bit-for-bit deterministic (`%s` differs between "
						  "two runs): candidates are held to the tolerance against themselves", jstr(e, "buffer"));
			}
		} else if (!strcmp(ev, "done")) {
			done = 1;
		} else if (!strcmp(ev, "nogpu")) {
			free(c->res->not_run);
			c->res->not_run = xasprintf("no usable GPU: %s", jstr(e, "message"));
		} else if (!strcmp(ev, "setup")) {
			char *where = case_desc(c, e);
			free(c->res->not_run);
			c->res->not_run = xasprintf("the original kernel fails the test itself, so the pragma does not "
						    "describe it: %s [%s]", jstr(e, "message"), where);
			c->res->setup_check = !strcmp(jstr(e, "check"), "out-of-bounds") ? "out-of-bounds"
				: !strcmp(jstr(e, "check"), "input-modified") ? "input-modified"
				: !strcmp(jstr(e, "check"), "launch") ? "launch" : "pragma";
			free(where);
		} else if (!strcmp(ev, "crash") || !strcmp(ev, "hang")) {
			int hang = !strcmp(ev, "hang");
			double v = astra_json_get_num(e, "version", -1);
			long ci = cand_of(c, v);
			unsigned ph = phase_bit(astra_json_get_str(e, "phase"));
			char *where = case_desc(c, e);
			if (ci >= 0) {
				const char *check = tool ? tool : hang ? "hang" : ph == PH_MISALIGNED ? "misaligned" : "crash";
				if (hang)
					astra_verify_reject(c, (size_t)ci, check, "did not finish within %.3g s (the watchdog stopped it) [%s]",
							    astra_json_get_num(e, "limit_s", 0), where);
				else
					astra_verify_reject(c, (size_t)ci, check, "crashed%s: %s (%s) [%s]",
							    ph == PH_MISALIGNED ? " with misaligned base pointers" : "",
							    jstr(e, "error"), jstr(e, "message"), where);
				oc = RUN_AGAIN;
			} else if (v == 0 && ph == PH_MISALIGNED && !hang && !tool) {
				c->res->misaligned = 0;
				astra_verify_note(c, "the original kernel faults on misaligned base pointers (%s): it requires aligned "
						  "buffers, so misaligned pointers were not tried on the candidates", jstr(e, "error"));
				*todo &= ~PH_MISALIGNED;
				oc = RUN_AGAIN;
			} else {
				free(c->res->not_run);
				c->res->not_run = v == 0
					? xasprintf("the original kernel %s [%s]", hang ? "hangs" : "crashes", where)
					: xasprintf("the test program failed: %s (%s) [%s]", jstr(e, "error"),
						    jstr(e, "message"), where);
				c->res->setup_check = v == 0 ? (hang ? "hang" : "crash") : "internal";
			}
			free(where);
		}
		astra_json_free(e);
	}
	if (done && rc == 0)
		return RUN_DONE;
	if (oc == RUN_AGAIN)
		return RUN_AGAIN;
	if (!c->res->not_run)
		c->res->not_run = c->stop_why
			? xasprintf("the test program stopped without a result: %s", c->stop_why)
			: xasprintf("the test program stopped without a result (exit status %d)", rc);
	return RUN_STOP;
}

static void versions_arg(struct vctx *c, struct astra_buf *b)
{
	size_t v;
	astra_buf_reset(b);
	for (v = 1; v <= c->nmap; v++)
		if (!c->c[c->map[v - 1]].done)
			astra_buf_addf(b, "%s%zu", b->len ? "," : "", v);
	if (!b->len)
		astra_buf_adds(b, "0");
}

static size_t nr_pending(const struct vctx *c)
{
	size_t v, n = 0;
	for (v = 1; v <= c->nmap; v++)
		n += !c->c[c->map[v - 1]].done;
	return n;
}

/*
 * Concurrent verifications (astra-cc --warmup -j N, parallel builds in
 * `optimize` mode, several --verify) share one GPU: a test program's
 * timings must not share it.  Every run on the GPU holds a lock:
 * ASTRA_CC_GPU_LOCK when set (warmup sets it for each worker's GPU), else
 * the GPU's own lock in the cache directory (gpu-<UUID>.lock, or gpu.lock
 * when the UUID is unknown: verify/gpu.h), so that every astra-cc using
 * that cache takes turns on that GPU, and runs on other GPUs go on;
 * compiles proceed in parallel.  The kernel releases an flock when its
 * holder dies.  A lock that cannot be opened (no cache directory) is
 * skipped.
 */
/* The cache directory: the caller's, else the `dir` setting. */
const char *astra_verify_cache_dir(const struct vctx *c)
{
	return c->o->cache_dir ? c->o->cache_dir : astra_config_str(ASTRA_CFG_DIR);
}

/*
 * Take the GPU lock: ASTRA_CC_GPU_LOCK's file, opened without following a
 * symbolic link at its end and without blocking on a FIFO (only a regular
 * file is locked), or the cache tier's local lock "gpu.lock" (created with
 * the cache's umask, like every lock there).  lk->fd < 0: no lock.
 */
static void gpu_lock(const struct vctx *c, struct astra_file_lock *lk)
{
	const char *path = astra_getenv("ASTRA_CC_GPU_LOCK");
	lk->fd = lk->dir = -1;
	lk->name = NULL;
	if (path) {
		mode_t old = astra_trust_umask_enter();
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
		struct stat st;
		astra_trust_umask_leave(old);
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			return;
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
		lk->fd = fd;
	} else {
		const char *dir = astra_verify_cache_dir(c);
		struct astra_storage *s;
		struct astra_gpu g;
		char *name;
		if (!dir || !*dir)
			return;
		/* gpu-<UUID>.lock: one lock per GPU (verify/gpu.h), so that workers on different GPUs run at once. */
		astra_gpu_probe(c->o->nvcc, &g);
		name = astra_gpu_lock_name(&g);
		s = astra_storage_file_open(dir);
		/* A fresh cache: the first runs must take turns too. */
		if (astra_storage_file_create(s) < 0 || astra_storage_file_lock(s, name, -1, lk) != 1)
			lk->fd = -1;
		s->ops->close(s);
		free(name);
	}
}

static void gpu_unlock(struct astra_file_lock *lk)
{
	if (lk->dir >= 0) {
		astra_storage_file_unlock(lk, 0);
	} else if (lk->fd >= 0) {
		close(lk->fd);
		lk->fd = -1;
	}
}

/*
 * Seconds the launches of a run of `versions` candidates (and the
 * original) take at the original's measured speed: its median time at
 * each case, ASTRA_VERIFY_LAUNCHES launches per case and version.  Before
 * this verification has timed the original, an earlier one's time
 * (opts.ref_us), else 0 (the first run of the loop's first round).
 */
static double planned_seconds(const struct vctx *c, size_t versions)
{
	double us = 0;
	size_t j;
	for (j = 0; c->res->baseline && j < c->res->nr_cases; j++)
		if (c->res->baseline[j].timed)
			us += c->res->baseline[j].timing.median;
	if (us <= 0)
		us = c->o->ref_us;
	return us * 1e-6 * ASTRA_VERIFY_LAUNCHES * (double)(versions + 1);
}

/*
 * Run a test program (argv) for `versions` candidates in the sandbox;
 * also_writable: a directory it may write in besides its own (NULL: none).
 */
int astra_verify_run_program(struct vctx *c, struct astra_vec *argv, size_t versions, const char *also_writable,
			     struct astra_buf *out, struct astra_buf *err, int *timed_out)
{
	struct astra_run_opts ro = { 0 };
	struct astra_sandbox sb;
	struct astra_sandbox_work work;
	struct astra_sandbox_limits lim;
	char *env_add[2] = { NULL, NULL };
	double t0;
	struct astra_file_lock lock;
	int rc, sandboxed = 0;
	astra_buf_reset(out);
	astra_buf_reset(err);
	free(c->stop_why);
	c->stop_why = NULL;
	ro.out = out;
	ro.err = err;
	/* The limits follow the work (verify/sandbox.h). */
	memset(&work, 0, sizeof(work));
	work.timeout = c->o->timeout;
	work.planned = planned_seconds(c, versions);
	work.cpus = sysconf(_SC_NPROCESSORS_ONLN);
	astra_sandbox_limits(&work, &lim);
	ro.timeout = lim.wall;
	/* Candidate code runs here: in the sandbox (verify/sandbox.h) unless the setting says no. */
	memset(&sb, 0, sizeof(sb));
	if (astra_config_bool(ASTRA_CFG_SANDBOX)) {
		char *dir = xasprintf("%s/run", c->dir);
		sandboxed = astra_sandbox_prepare(&sb, dir, &lim, also_writable) == 0;
		free(dir);
	}
	if (sandboxed) {
		ro.cwd = sb.dir;
		env_add[0] = sb.tmpdir_env;
		ro.env_add = env_add;
		ro.child_setup = astra_sandbox_enter;
		ro.child_data = &sb;
	}
	if (!c->sandbox_noted) {
		const char *why = NULL;
		c->sandbox_noted = 1;
		if (!sandboxed)
			astra_verify_note(c, "sandbox: off (setting `sandbox`, or no private directory): test programs ran without limits");
		else if (!astra_sandbox_netns_available(&why))
			astra_verify_note(c, "sandbox: limits and a private directory; not isolated from the network (%s)", why);
		if (sandboxed && !astra_sandbox_landlock_available(&why))
			astra_verify_note(c, "sandbox: the test programs' writes are not confined to their directory: they may write "
					  "wherever the user may (%s)", why);
		else if (sandboxed && sb.ruleset < 0)
			astra_verify_note(c, "sandbox: the test programs' writes are not confined to their directory: a Landlock rule "
					  "could not be made (see the log)");
	}
	t0 = astra_now();
	gpu_lock(c, &lock);
	c->res->gpu_wait_seconds += astra_now() - t0;
	t0 = astra_now();
	rc = astra_run(argv->v, &ro);
	gpu_unlock(&lock);
	c->res->run_seconds += astra_now() - t0;
	c->res->program_runs++;
	*timed_out = ro.timed_out;
	astra_trace(ASTRA_TRACE_VERIFY, "test program: exit %d%s after %.1f s (limits: %.0f s wall-clock, %.0f s CPU)",
		    rc, ro.timed_out ? " (timed out)" : "", ro.seconds, lim.wall, lim.cpu);
	if (ro.timed_out)
		c->stop_why = xasprintf("killed by the wall-clock limit (%.0f s)", lim.wall);
	else if (sandboxed)
		c->stop_why = astra_sandbox_stop_reason(&sb, rc, err->buf);
	if (sandboxed)
		astra_sandbox_release(&sb);
	return rc;
}

static void common_args(struct vctx *c, struct astra_vec *argv)
{
	astra_vec_push(argv, "--seed");
	astra_vec_pushf(argv, "%llu", c->seed);
	astra_vec_push(argv, "--watchdog");
	astra_vec_pushf(argv, "%g", c->o->watchdog > 0 ? c->o->watchdog : 5.0);
}

/* The main run: checks, timing, post, misaligned; re-run until all judged. */
void astra_verify_run_round(struct vctx *c)
{
	unsigned todo = c->o->timing_only ? PH_TIMING
		: PH_CHECK | PH_POST | PH_MISALIGNED | (c->o->timing ? PH_TIMING : 0);
	struct astra_buf out = ASTRA_BUF_INIT, err = ASTRA_BUF_INIT, vers = ASTRA_BUF_INIT, ph = ASTRA_BUF_INIT;
	size_t attempt;

	c->res->misaligned = 1;
	c->res->reference_deterministic = 1;
	for (attempt = 0; attempt < c->nmap + 4 && todo; attempt++) {
		struct astra_vec argv = ASTRA_VEC_INIT;
		int rc, timed_out;
		enum outcome oc;
		if (!nr_pending(c))
			todo &= PH_TIMING;  /* the baseline's profile is still wanted */
		if (!todo)
			break;
		versions_arg(c, &vers);
		astra_vec_push(&argv, c->prog);
		astra_vec_push(&argv, "--phases");
		astra_vec_push(&argv, phase_names(todo, &ph));
		astra_vec_push(&argv, "--versions");
		astra_vec_push(&argv, vers.buf);
		common_args(c, &argv);
		rc = astra_verify_run_program(c, &argv, nr_pending(c), NULL, &out, &err, &timed_out);
		astra_vec_clear(&argv);
		if (timed_out) {
			free(c->res->not_run);
			c->res->not_run = xasprintf("the test program was %s", c->stop_why);
			break;
		}
		oc = read_events(c, &out, rc, &todo, NULL);
		if (oc == RUN_DONE || (oc == RUN_AGAIN && !todo)) {
			c->finished = 1;
			todo = 0;
			break;
		}
		if (oc == RUN_STOP) {
			if (err.len) {
				char *head = astra_verify_first_lines(err.buf, 5);
				astra_trace(ASTRA_TRACE_VERIFY, "test program stderr: %s", head);
				free(head);
			}
			break;
		}
		if (!nr_pending(c) && !(todo & PH_TIMING)) {
			c->finished = 1;
			todo = 0;
		}
	}
	if (todo && !c->res->not_run)
		c->res->not_run = xstrdup("the test program did not finish (too many re-runs)");
	astra_buf_release(&out);
	astra_buf_release(&err);
	astra_buf_release(&vers);
	astra_buf_release(&ph);
}

/* ----------------------------------------------------------- sanitizers */

static char *find_sanitizer(struct vctx *c)
{
	char *dir = xstrdup(c->o->nvcc), *slash = strrchr(dir, '/'), *p = NULL;
	if (slash) {
		*slash = '\0';
		p = xasprintf("%s/compute-sanitizer", dir);
		if (access(p, X_OK) != 0) {
			free(p);
			p = NULL;
		}
	}
	free(dir);
	return p ? p : astra_which("compute-sanitizer");
}

/*
 * Read a compute-sanitizer log: each report starts with a "========= "
 * header line; the lines after it name the kernel ("at astra_cand_2::k...").
 * Reports about a candidate reject it; reports about the original are noted.
 */
static size_t read_sanitizer_log(struct vctx *c, const char *tool, const char *log)
{
	const char *p = log;
	char *header = NULL;
	size_t rejected = 0;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		char *l = xstrndup(p, eol ? (size_t)(eol - p) : strlen(p));
		p = eol ? eol + 1 : NULL;
		if (!astra_starts_with(l, "========= ")) {
			free(l);
			continue;
		}
		if (l[10] != ' ' && !astra_starts_with(l + 10, "ERROR SUMMARY") &&
		    !astra_starts_with(l + 10, "COMPUTE-SANITIZER") && !astra_starts_with(l + 10, "Program hit") &&
		    !astra_starts_with(l + 10, "Saved host backtrace") && !astra_starts_with(l + 10, "Target application")) {
			free(header);
			header = xstrdup(l + 10);
		}
		if (header) {
			const char *ac = strstr(l, "astra_cand_");
			if (ac) {
				long v = strtol(ac + strlen("astra_cand_"), NULL, 10);
				long ci = cand_of(c, (double)(v + 1));
				if (ci >= 0 && !c->c[ci].done) {
					char *at = xstrdup(l + 10);
					char *s = at;
					while (*s == ' ')
						s++;
					astra_verify_reject(c, (size_t)ci, tool, "compute-sanitizer --tool %s: %s (%s)", tool, header, s);
					free(at);
					rejected++;
				}
				free(header);
				header = NULL;
			}
		}
		free(l);
	}
	free(header);
	return rejected;
}

void astra_verify_run_sanitizers(struct vctx *c)
{
	static const char *const tools[] = { "memcheck", "racecheck" };
	int want = c->o->sanitizer < 0 ? astra_config_bool(ASTRA_CFG_SANITIZER) : c->o->sanitizer;
	double run0 = c->res->run_seconds;
	char *cs, *logdir;
	size_t t;
	if (!want) {
		astra_verify_note(c, "compute-sanitizer: disabled (setting `sanitizer`)");
		return;
	}
	cs = find_sanitizer(c);
	if (!cs) {
		astra_verify_note(c, "compute-sanitizer: not found, memcheck and racecheck did not run");
		return;
	}
	/* Its logs: a directory of their own, the one it may write besides the program's (verify/sandbox.h). */
	logdir = xasprintf("%s/tools", c->dir);
	if (mkdir(logdir, 0700) < 0 && errno != EEXIST)
		astra_verify_note(c, "cannot create %s: %s", logdir, strerror(errno));
	for (t = 0; t < ARRAY_SIZE(tools); t++) {
		struct astra_buf out = ASTRA_BUF_INIT, err = ASTRA_BUF_INIT, vers = ASTRA_BUF_INIT, log = ASTRA_BUF_INIT;
		char *logpath = xasprintf("%s/%s.log", logdir, tools[t]);
		size_t attempt;
		int clean = 0;
		for (attempt = 0; attempt < c->nmap + 2 && nr_pending(c); attempt++) {
			struct astra_vec argv = ASTRA_VEC_INIT;
			unsigned todo = PH_CHECK;
			int rc, timed_out;
			size_t rej;
			enum outcome oc;
			versions_arg(c, &vers);
			astra_vec_push(&argv, cs);
			astra_vec_push(&argv, "--tool");
			astra_vec_push(&argv, tools[t]);
			astra_vec_push(&argv, "--log-file");
			astra_vec_push(&argv, logpath);
			astra_vec_push(&argv, "--print-limit");
			astra_vec_push(&argv, "20");
			astra_vec_push(&argv, "--error-exitcode");
			astra_vec_push(&argv, "86");
			astra_vec_push(&argv, c->prog);
			astra_vec_push(&argv, "--sanitize");
			astra_vec_push(&argv, "--versions");
			astra_vec_push(&argv, vers.buf);
			common_args(c, &argv);
			unlink(logpath);
			rc = astra_verify_run_program(c, &argv, nr_pending(c), logdir, &out, &err, &timed_out);
			astra_vec_clear(&argv);
			astra_buf_reset(&log);
			astra_buf_read_file(&log, logpath, 16 << 20);
			rej = read_sanitizer_log(c, tools[t], log.buf);
			if (timed_out) {
				astra_verify_note(c, "compute-sanitizer --tool %s: %s; not counted", tools[t], c->stop_why);
				break;
			}
			oc = read_events(c, &out, rc == 86 ? 0 : rc, &todo, tools[t]);
			if (oc == RUN_DONE && rc == 0) {
				clean = 1;
				break;
			}
			if (oc == RUN_DONE && rc == 86 && !rej) {
				/* Errors the log did not tie to a candidate: the original's, or ours. */
				clean = 1;
				break;
			}
			if (oc == RUN_STOP && !rej) {
				if (c->stop_why)
					astra_verify_note(c, "compute-sanitizer --tool %s did not complete (%s); not counted", tools[t],
							  c->stop_why);
				else
					astra_verify_note(c, "compute-sanitizer --tool %s did not complete (exit status %d); not counted",
							  tools[t], rc);
				/* A failure of the tool must not hide the main verdicts. */
				free(c->res->not_run);
				c->res->not_run = NULL;
				c->res->setup_check = NULL;
				break;
			}
		}
		if (clean) {
			size_t i;
			if (t == 0)
				c->res->memcheck = 1;
			else
				c->res->racecheck = 1;
			for (i = 0; i < c->n; i++)
				if (c->c[i].in_prog && !c->c[i].done) {
					if (t == 0)
						c->res->cands[i].memcheck = 1;
					else
						c->res->cands[i].racecheck = 1;
				}
		}
		free(logpath);
		astra_buf_release(&out);
		astra_buf_release(&err);
		astra_buf_release(&vers);
		astra_buf_release(&log);
	}
	c->res->sanitizer_seconds += c->res->run_seconds - run0;
	free(cs);
	free(logdir);
}
