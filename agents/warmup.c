/*
 * warmup.c - offline cache warmup (see warmup.h).
 *
 * The parent collects jobs (one per translation unit), forks up to -j
 * workers, and prints the table.  A worker handles one TU: it extracts the
 * annotated kernels and runs the loop on each that needs it, and writes
 * one JSON line per kernel to its result file.  Workers are processes, not
 * threads: libclang, nvcc runs and the verifier's children stay isolated,
 * and a crash costs one TU's result, not the warmup.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/captured.h"
#include "agents/evidence.h"
#include "agents/gpus.h"
#include "agents/loop.h"
#include "agents/progress.h"
#include "agents/warmup.h"
#include "verify/gpu.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/locate.h"
#include "lib/log.h"
#include "lib/nvccopts.h"
#include "lib/run.h"
#include "front/key.h"
#include "cache/lock.h"
#include "cache/queue.h"
#include "cache/stats.h"
#include "cache/storage.h"
#include "cache/store.h"
#include "front/extract.h"
#include "rules/explain.h"

struct job {
	char *cwd;
	struct astra_vec argv;  /* argv[0] = the real nvcc */
	char *file;
	char *only_kernel;      /* from the queue: just this kernel */
};

struct opts {
	int jobs;
	int no_run;
	int progress;           /* --progress 1, --no-progress 0, else -1 */
	struct astra_progress *prog;
	int max_rounds;
	int measure_all;
	const char *json_out;
	const char *nvcc;
	struct astra_gpu gpu;     /* the worker's GPU (the first one in the parent) */
	struct astra_gpu *gpus;   /* the GPUs of this warmup, one worker each at least */
	size_t nr_gpus;
	int cc;                   /* the keys' architecture: the GPU's, --arch's or 90 */
	int plan;
	char *gpu_lock;
	char *out_lock;           /* the workers take turns printing their blocks (emit_block) */
};

/* In a worker: the nvidia-smi index of its GPU, put in every row; -1 without. */
static int worker_gpu = -1;

static void job_release(struct job *j)
{
	free(j->cwd);
	astra_vec_clear(&j->argv);
	free(j->file);
	free(j->only_kernel);
}

/* A compile command from a build system: drop astra-cc and ccache-like
 * launchers in front, put the real nvcc first. */
static int normalize_command(struct astra_vec *args, const char *nvcc)
{
	while (args->nr) {
		const char *base = astra_basename(args->v[0]);
		if (astra_starts_with(base, "nvcc")) {
			astra_vec_set(args, 0, nvcc);
			return 0;
		}
		if (astra_starts_with(base, "astra-cc") || !strcmp(base, "ccache") || !strcmp(base, "sccache")) {
			astra_vec_remove(args, 0);
			if (args->nr && args->v[0][0] == '-') {
				astra_vec_insert(args, 0, nvcc);
				return 0;
			}
			continue;
		}
		return -1;
	}
	return -1;
}

static int load_compile_commands(const char *where, const char *nvcc, struct job **jobs, size_t *nr, size_t *alloc)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_json *db;
	struct stat st;
	char *path;
	size_t i;

	if (stat(where, &st) == 0 && S_ISDIR(st.st_mode))
		path = xasprintf("%s/compile_commands.json", where);
	else
		path = xstrdup(where);
	if (astra_buf_read_file(&b, path, 0) < 0) {
		fprintf(stderr, "%s: cannot read %s: %s\n", astra_progname, path, strerror(errno));
		free(path);
		return -1;
	}
	db = astra_json_parse(b.buf, b.len);
	astra_buf_release(&b);
	if (!astra_json_is_array(db)) {
		fprintf(stderr, "%s: %s: not a compilation database (a JSON array)\n", astra_progname, path);
		astra_json_free(db);
		free(path);
		return -1;
	}
	for (i = 0; i < astra_json_len(db); i++) {
		struct astra_json *e = astra_json_at(db, i);
		const char *dir = astra_json_get_str(e, "directory");
		const char *file = astra_json_get_str(e, "file");
		const char *command = astra_json_get_str(e, "command");
		struct astra_json *arguments = astra_json_get(e, "arguments");
		struct job j = { 0 };
		size_t k;
		if (!dir || !file || !astra_ends_with(file, ".cu"))
			continue;
		astra_vec_init(&j.argv);
		if (command)
			astra_vec_split_shell(&j.argv, command);
		else
			for (k = 0; k < astra_json_len(arguments); k++)
				if (astra_json_str(astra_json_at(arguments, k)))
					astra_vec_push(&j.argv, astra_json_str(astra_json_at(arguments, k)));
		if (normalize_command(&j.argv, nvcc) < 0) {
			astra_vec_clear(&j.argv);
			continue;
		}
		j.cwd = xstrdup(dir);
		j.file = xstrdup(file);
		ALLOC_GROW(*jobs, *nr + 1, *alloc);
		(*jobs)[(*nr)++] = j;
	}
	astra_json_free(db);
	free(path);
	return 0;
}

/*
 * In a run without a GPU: the candidates that the gates, the compiler or
 * the geometry check rejected, in the row ("rejected": [{candidate,
 * check, reason}]) and one line each on stdout.  They are the optimizer's
 * mistakes (or the harness's), visible before any GPU time is spent.
 */
static void note_rejected(struct astra_json *row, const struct astra_loop_result *res, const char *prefix,
			  const char *kernel, struct astra_buf *out)
{
	struct astra_json *arr = astra_json_set_array(row, "rejected");
	size_t i;
	if (!res->have_evidence)
		return;
	for (i = 0; i < res->evidence.nr_cands; i++) {
		const struct astra_cand_result *c = &res->evidence.cands[i];
		struct astra_json *r;
		char *first;
		if (c->verdict != ASTRA_CAND_REJECTED)
			continue;
		first = xstrndup(c->reason ? c->reason : "", strcspn(c->reason ? c->reason : "", "\n"));
		r = astra_json_new_object();
		astra_json_set_str(r, "candidate", c->name ? c->name : "?");
		astra_json_set_str(r, "check", c->check ? c->check : "?");
		astra_json_set_str(r, "reason", first);
		astra_json_push(arr, r);
		astra_buf_addf(out, "%s %s: candidate %s rejected (%s): %s\n", prefix, kernel, c->name ? c->name : "?",
			       c->check ? c->check : "?", first);
		free(first);
	}
}

/* ------------------------------------------------------------ worker */

/*
 * "advice" in a kernel's row: the clauses no run proves that would let
 * more candidates through (the capture's and the loop's, agents/hints.h),
 * for tools (bench/capture/advice.py); the output says them in words.
 */
static void add_advice(struct astra_json *row, const struct astra_vec *capture, const struct astra_vec *loop)
{
	struct astra_json *arr;
	size_t i;
	if (!capture->nr && (!loop || !loop->nr))
		return;
	arr = astra_json_set_array(row, "advice");
	for (i = 0; i < capture->nr; i++)
		astra_json_push_str(arr, capture->v[i]);
	for (i = 0; loop && i < loop->nr; i++)
		astra_json_push_str(arr, loop->v[i]);
}

static const char *kernel_types(const struct astra_kernel *k, struct astra_buf *b)
{
	size_t i, j;
	astra_buf_reset(b);
	for (i = 0; i < k->pragma.nr_types; i++) {
		const struct astra_assign_set *s = &k->pragma.types[i];
		if (i)
			astra_buf_adds(b, " ");
		for (j = 0; j < s->nr; j++)
			astra_buf_addf(b, "%s%s", j ? "," : "", s->items[j].value);
	}
	return b->buf;
}

static void emit_row(FILE *out, struct astra_json *row)
{
	char *s = astra_json_print(row, 0);
	fprintf(out, "%s\n", s);
	fflush(out);
	free(s);
	astra_json_free(row);
}

static struct astra_json *new_row(const struct job *j, const struct astra_kernel *k, const char *status)
{
	struct astra_json *row = astra_json_new_object();
	struct astra_buf types = ASTRA_BUF_INIT;
	astra_json_set_str(row, "file", j->file);
	if (k) {
		astra_json_set_str(row, "kernel", k->name);
		astra_json_set_num(row, "line", k->line);
		astra_json_set_str(row, "types", kernel_types(k, &types));
	}
	astra_json_set_str(row, "status", status);
	if (worker_gpu >= 0)
		astra_json_set_num(row, "gpu", worker_gpu);
	astra_buf_release(&types);
	return row;
}

static void fill_from_entry(struct astra_json *row, const struct astra_entry *e)
{
	astra_json_set_str(row, "verdict", astra_verdict_name(e->verdict));
	astra_json_set_num(row, "speedup", e->speedup);
	if (e->origin)
		astra_json_set_str(row, "rules", e->origin);
	if (e->reason)
		astra_json_set_str(row, "reason", e->reason);
	if (e->nr_timings) {
		const struct astra_entry_timing *t = &e->timings[0];
		astra_json_set_num(row, "baseline_us", t->baseline_us);
		astra_json_set_num(row, "best_us", t->variant_us);
	}
	if (astra_entry_is_dispatch(e)) {
		/* A variant set: what the loop's row says (variants, parameters, per-shape choice). */
		struct astra_json *vs = astra_json_set_array(row, "variants"), *ps, *cases;
		struct astra_buf all = ASTRA_BUF_INIT;
		size_t i, j;
		for (i = 0; i < e->nr_variants; i++) {
			const char *o = e->variants[i].origin ? e->variants[i].origin : "?";
			astra_json_push_str(vs, o);
			astra_buf_addf(&all, "%sv%zu %s", i ? "; " : "", i + 1, o);
		}
		astra_json_set_str(row, "rules", all.buf);
		astra_buf_release(&all);
		astra_json_set_bool(row, "dispatch", 1);
		ps = astra_json_set_array(row, "dispatch_params");
		for (i = 0; i < e->nr_params; i++)
			astra_json_push_str(ps, e->params[i]);
		cases = astra_json_set_array(row, "cases");
		for (i = 0; i < e->nr_points; i++) {
			const struct astra_entry_point *p = &e->points[i];
			struct astra_json *c = astra_json_new_object(), *t;
			astra_json_set_str(c, "shape", p->shape);
			astra_json_set_num(c, "baseline_us", p->median_us[0]);
			astra_json_set_str(c, "runs",
					   p->choice ? astra_json_str(astra_json_at(vs, (size_t)p->choice - 1)) : "original");
			astra_json_set_num(c, "variant_us", p->median_us[p->choice]);
			t = astra_json_set_array(c, "versions_us");
			for (j = 0; j <= e->nr_variants; j++)
				astra_json_push_num(t, p->median_us[j]);
			astra_json_push(cases, c);
		}
	}
}

static void fill_from_loop(struct astra_json *row, const struct astra_loop_result *r)
{
	size_t i;
	struct astra_json *log;
	astra_json_set_str(row, "verdict", astra_verdict_name(r->verdict));
	astra_json_set_num(row, "speedup", r->verdict == ASTRA_VERDICT_FASTER ? r->speedup : 1.0);
	astra_json_set_num(row, "speedup_largest", r->verdict == ASTRA_VERDICT_FASTER ? r->speedup_largest : 1.0);
	astra_json_set_num(row, "baseline_us", r->baseline_us);
	astra_json_set_num(row, "best_us", r->verdict == ASTRA_VERDICT_FASTER ? r->best_us : r->baseline_us);
	astra_json_set_num(row, "baseline_bw_frac", r->baseline_bw_frac);
	astra_json_set_num(row, "best_bw_frac", r->verdict == ASTRA_VERDICT_FASTER ? r->best_bw_frac : r->baseline_bw_frac);
	if (r->bytes > 0)
		astra_json_set_num(row, "bytes", r->bytes);
	if (r->verdict == ASTRA_VERDICT_FASTER && r->dispatch) {
		/* A variant set: every variant, chosen per launch. */
		struct astra_buf all = ASTRA_BUF_INIT;
		for (i = 0; i < r->nr_variants; i++)
			astra_buf_addf(&all, "%sv%zu %s", i ? "; " : "", i + 1,
				       r->variants[i].origin ? r->variants[i].origin : "?");
		astra_buf_adds(&all, " (chosen per launch)");
		astra_json_set_str(row, "rules", all.buf);
		astra_buf_release(&all);
	} else if (r->best.origin) {
		astra_json_set_str(row, "rules", r->best.origin);
	}
	astra_json_set_num(row, "rounds", r->rounds);
	if (r->hints.nr) {
		struct astra_json *hs = astra_json_set_array(row, "hints");
		for (i = 0; i < r->hints.nr; i++)
			astra_json_push_str(hs, r->hints.v[i]);
	}
	astra_json_set_num(row, "seconds", r->seconds);
	astra_json_set_num(row, "gpu_wait_seconds", r->gpu_wait_seconds);
	astra_json_set_num(row, "tried", (double)r->tried);
	astra_json_set_num(row, "compiled", (double)r->compiled);
	astra_json_set_num(row, "accepted", (double)r->accepted);
	if (r->reason)
		astra_json_set_str(row, "reason", r->reason);
	log = astra_json_set_array(row, "log");
	for (i = 0; i < r->log.nr; i++)
		astra_json_push_str(log, r->log.v[i]);
	if (r->verdict == ASTRA_VERDICT_FASTER) {
		struct astra_json *vs = astra_json_set_array(row, "variants");
		for (i = 0; i < r->nr_variants; i++)
			astra_json_push_str(vs, r->variants[i].origin ? r->variants[i].origin : "?");
		astra_json_set_bool(row, "dispatch", r->dispatch);
		if (r->dispatch) {
			struct astra_json *ps = astra_json_set_array(row, "dispatch_params");
			for (i = 0; i < r->params.nr; i++)
				astra_json_push_str(ps, r->params.v[i]);
		}
	}
	if (r->nr_contenders) {
		/* Every candidate that passed, with its times per shape (scaled to the first round's baseline). */
		struct astra_json *cs = astra_json_set_array(row, "contenders"), *b;
		size_t j;
		b = astra_json_set_array(row, "contender_baseline_us");
		for (j = 0; j < r->nr_contender_cases; j++)
			astra_json_push_num(b, r->contender_baseline_us[j]);
		for (i = 0; i < r->nr_contenders; i++) {
			struct astra_json *c = astra_json_new_object(), *us;
			astra_json_set_str(c, "origin", r->contenders[i].origin);
			astra_json_set_num(c, "round", r->contenders[i].round);
			us = astra_json_set_array(c, "us");
			for (j = 0; j < r->nr_contender_cases; j++)
				astra_json_push_num(us, r->contenders[i].us[j]);
			astra_json_set_str(c, "text", r->contenders[i].text);
			astra_json_push(cs, c);
		}
	}
	if (r->have_evidence && r->evidence.nr_cases) {
		const struct astra_verify_result *v = &r->evidence;
		struct astra_json *cases = astra_json_set_array(row, "cases");
		for (i = 0; i < v->nr_cases; i++) {
			struct astra_json *c = astra_json_new_object();
			const struct astra_timing *b = astra_loop_version_timing(r, 0, i), *t;
			astra_json_set_str(c, "shape", v->labels[i]);
			astra_json_set_num(c, "bytes", v->bytes[i]);
			if (b)
				astra_json_set_num(c, "baseline_us", b->median);
			if (r->verdict == ASTRA_VERDICT_FASTER && r->choice) {
				/* The version that runs at this shape, and every kept version's time there. */
				size_t w = r->choice[i], j;
				struct astra_json *times = astra_json_set_array(c, "versions_us");
				t = astra_loop_version_timing(r, w, i);
				astra_json_set_str(c, "runs", w ? (r->variants[w - 1].origin ? r->variants[w - 1].origin : "?")
							  : "original");
				for (j = 0; j <= r->nr_variants; j++) {
					const struct astra_timing *x = astra_loop_version_timing(r, j, i);
					astra_json_push_num(times, x ? x->median : 0);
				}
				if (b && t) {
					astra_json_set_num(c, "variant_us", t->median);
					astra_json_set_num(c, "speedup", t->median > 0 ? b->median / t->median : 0);
					astra_json_set_num(c, "cmp", w ? astra_profile_compare(b, t, NULL) : 0);
				}
			}
			astra_json_push(cases, c);
		}
		if (v->device)
			astra_json_set_str(row, "device", v->device);
		astra_json_set_num(row, "copy_ceiling_gbps", v->ceilings.copy_gbps);
	}
}

static void add_key_inputs(struct astra_entry *e, const struct astra_cmdline *cl, const char *arch,
			   const char *nvcc_version)
{
	struct astra_buf flags = ASTRA_BUF_INIT;
	size_t i;
	for (i = 0; i < cl->device_flags.nr; i++)
		astra_buf_addf(&flags, "%s%s", i ? " " : "", cl->device_flags.v[i]);
	astra_entry_add_input(e, "arch", arch);
	astra_entry_add_input(e, "nvcc", nvcc_version);
	astra_entry_add_input(e, "device_flags", flags.buf);
	astra_buf_release(&flags);
}

/*
 * Print a kernel's block of lines (b, emptied) in one piece: workers share
 * standard output (in the live display, one pipe to the parent), and a
 * block written a line at a time is interleaved with the other workers'
 * (a "rules that apply:" header far from its rules).  The lock file
 * (opened by each worker itself: flock() holds per open file) keeps
 * another worker's block out while this one is written.
 */
static void emit_block(const struct opts *o, struct astra_buf *b)
{
	static int fd = -2;
	size_t done = 0;
	if (!b->len)
		return;
	if (fd == -2)
		fd = o->out_lock ? open(o->out_lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
	fflush(stdout);
	if (fd >= 0)
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
	while (done < b->len) {
		ssize_t n = write(1, b->buf + done, b->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (fd >= 0)
		flock(fd, LOCK_UN);
	astra_buf_reset(b);
}

/* What a capture gave the test of k: the shapes with where each came from, and what was inferred. */
static void add_captured(struct astra_buf *b, const char *prefix, const struct astra_kernel *k,
			 const struct astra_captured_info *ci)
{
	size_t i;
	astra_buf_addf(b, "%s %s: %zu test shape%s (%zu from the pragma, %zu of %zu captured from %lld launch%s in "
		       "%lld run%s)\n", prefix, k->name, ci->shapes.nr, ci->shapes.nr == 1 ? "" : "s", ci->nr_pragma,
		       ci->nr_used, ci->nr_captured, ci->launches, ci->launches == 1 ? "" : "es", ci->runs, ci->runs == 1 ? "" : "s");
	for (i = 0; i < ci->shapes.nr; i++)
		astra_buf_addf(b, "%s   shape %s\n", prefix, ci->shapes.v[i]);
	for (i = 0; i < ci->notes.nr; i++)
		astra_buf_addf(b, "%s   note: %s\n", prefix, ci->notes.v[i]);
}

static int run_job(const struct job *j, const struct opts *o, FILE *out, const char *prefix)
{
	struct astra_cmdline cl;
	struct astra_tu tu;
	struct astra_search_path sp;
	struct astra_cache *cache;
	struct astra_buf version = ASTRA_BUF_INIT;
	struct astra_kernel *copies;
	struct astra_vec advice = ASTRA_VEC_INIT; /* a kernel's capture clauses, for its row */
	struct astra_buf blk = ASTRA_BUF_INIT;    /* a kernel's lines, printed together (emit_block) */
	char *arch;
	size_t i;

	if (chdir(j->cwd) < 0) {
		struct astra_json *row = new_row(j, NULL, "error");
		astra_json_set_str(row, "reason", "cannot enter the compile's directory");
		emit_row(out, row);
		return -1;
	}
	astra_cmdline_parse(&cl, (int)j->argv.nr, j->argv.v);
	if (cl.reason) {
		struct astra_json *row = new_row(j, NULL, "error");
		char *why = xasprintf("not a single-file compile (%s)", cl.reason);
		astra_json_set_str(row, "reason", why);
		free(why);
		emit_row(out, row);
		astra_cmdline_release(&cl);
		return -1;
	}
	memset(&tu, 0, sizeof(tu));
	memset(&sp, 0, sizeof(sp));
	astra_search_path_add_toolchain(&sp, &cl, o->nvcc, astra_config_str(ASTRA_CFG_DIR));
	tu.search = &sp;
	if (astra_extract_tu(&tu, cl.inputs.v[0], &cl) < 0) {
		struct astra_json *row = new_row(j, NULL, "error");
		astra_json_set_str(row, "reason", "libclang could not parse the file");
		emit_row(out, row);
		astra_tu_release(&tu);
		astra_search_path_release(&sp);
		astra_cmdline_release(&cl);
		return -1;
	}
	if (tu.diags.nr) {
		char *s = astra_diags_format(&tu.diags);
		fputs(s, stderr);
		free(s);
	}
	astra_key_nvcc_version(o->nvcc, astra_config_str(ASTRA_CFG_DIR), &version);
	arch = xasprintf("sm_%d", o->cc);
	cache = astra_cache_open(NULL);
	/* Kernels completed from their captures (agents/captured.h), released with the TU. */
	copies = xcalloc(tu.nr_kernels ? tu.nr_kernels : 1, sizeof(*copies));

	for (i = 0; i < tu.nr_kernels; i++) {
		const struct astra_kernel *k = &tu.kernels[i];
		struct astra_captured_info ci;
		int cr;
		struct astra_loop_opts lo = { 0 };
		struct astra_loop_result res;
		struct astra_key key;
		struct astra_entry e;
		struct astra_json *row;
		size_t h;

		astra_vec_clear(&advice);

		if (j->only_kernel && strcmp(j->only_kernel, k->name))
			continue;
		if (k->pragma.flags & ASTRA_PRAGMA_OFF)
			continue;
		if (k->bad_pragma) {
			row = new_row(j, k, "error");
			astra_json_set_str(row, "reason", "the pragma has mistakes (see the diagnostics above)");
			emit_row(out, row);
			continue;
		}
		if (astra_key_compute(&tu, k, &cl, arch, version.buf, &key, NULL) < 0) {
			row = new_row(j, k, "error");
			astra_json_set_str(row, "reason",
					   "no key covers every header this kernel can see (see the log)");
			emit_row(out, row);
			continue;
		}
		astra_captured_info_init(&ci);
		cr = astra_captured_kernel(cache, key.hex, o->cc, k, &copies[i], &ci);
		if (cr < 0) {
			/* `#pragma astra optimize` alone and nothing captured: say how to capture. */
			astra_buf_addf(&blk, "%s %s (%s:%u): %s\n", prefix, k->name, k->file, k->line, ci.missing);
			emit_block(o, &blk);
			row = new_row(j, k, "needs-capture");
			astra_json_set_str(row, "reason", ci.missing);
			emit_row(out, row);
			astra_captured_info_release(&ci);
			astra_captured_kernel_release(&copies[i]);
			continue;
		}
		if (cr > 0)
			add_captured(&blk, prefix, k, &ci);
		astra_vec_pushv(&advice, ci.advice.v, ci.advice.nr);
		astra_captured_info_release(&ci);
		k = &copies[i];
		lo.nvcc = o->nvcc;
		lo.max_rounds = o->max_rounds;
		lo.measure_original = o->measure_all;
		lo.progress = astra_progress_loop;
		lo.progress_data = o->prog;

		if (o->plan || (o->gpu.present && !o->no_run))
			emit_block(o, &blk);
		if (o->plan) {
			/* A work item for the cluster, unless the (shared) cache has it. */
			struct astra_json *argv;
			size_t a;
			astra_entry_init(&e);
			if (astra_cache_lookup(cache, key.hex, o->cc, &e) == 1) {
				row = new_row(j, k, "cached");
				fill_from_entry(row, &e);
				astra_entry_release(&e);
			} else {
				row = new_row(j, k, "planned");
			}
			astra_json_set_str(row, "key", key.hex);
			astra_json_set_num(row, "cc", o->cc);
			astra_json_set_str(row, "cwd", j->cwd);
			argv = astra_json_set_array(row, "argv");
			for (a = 0; a < j->argv.nr; a++)
				astra_json_push_str(argv, j->argv.v[a]);
			emit_row(out, row);
			continue;
		}

		if (!o->gpu.present || o->no_run) {
			{
				unsigned set = astra_optimizer_set_parse(astra_config_str(ASTRA_CFG_OPTIMIZER));
				if (!set || (set & ASTRA_OPTIMIZERS_RULES)) {
					astra_buf_addf(&blk, "%s %s (%s:%u): rules that apply:\n", prefix, k->name, k->file,
						       k->line);
					astra_rules_explain(k, o->cc, &blk);
				}
				if (set & ASTRA_OPTIMIZERS_LLM)
					astra_buf_addf(&blk, "%s %s (%s:%u): %s\n", prefix, k->name, k->file, k->line,
						       set & ASTRA_OPTIMIZERS_RULES
							       ? "and the model's candidates (optimizer = both)"
							       : "the model proposes the candidates (optimizer = llm), not the rules");
			}
			lo.no_run = 1;
			lo.cc = o->cc;
			lo.max_rounds = 1;
			astra_loop_run(&tu, k, &cl, &lo, &res);
			if (res.verdict == ASTRA_VERDICT_FAILED) {
				/* The test program itself does not build: nothing was compiled, say why. */
				row = new_row(j, k, "failed");
				astra_json_set_num(row, "tried", (double)res.tried);
				astra_json_set_num(row, "compiled", (double)res.compiled);
				astra_json_set_str(row, "reason", res.reason ? res.reason : "the test program could not be built");
				astra_buf_addf(&blk, "%s %s: %zu candidate%s generated; the test program could not be built: %s\n",
					       prefix, k->name, res.tried, res.tried == 1 ? "" : "s",
					       res.reason ? res.reason : "(no reason given)");
				emit_block(o, &blk);
				emit_row(out, row);
				astra_loop_result_release(&res);
				continue;
			}
			row = new_row(j, k, "not-run");
			add_advice(row, &advice, NULL);
			astra_json_set_num(row, "tried", (double)res.tried);
			astra_json_set_num(row, "compiled", (double)res.compiled);
			astra_json_set_str(row, "reason", o->gpu.present ? "--no-run" : "no GPU: verification and timing need one");
			astra_buf_addf(&blk, "%s %s: %zu candidate%s generated, %zu compiled with nvcc; not verified: %s\n",
				       prefix, k->name, res.tried, res.tried == 1 ? "" : "s", res.compiled,
				       o->gpu.present ? "--no-run" : "no GPU on this machine (verification runs the kernels)");
			note_rejected(row, &res, prefix, k->name, &blk);
			emit_block(o, &blk);
			emit_row(out, row);
			astra_loop_result_release(&res);
			continue;
		}

		astra_entry_init(&e);
		if (astra_cache_lookup(cache, key.hex, o->gpu.cc, &e) == 1) {
			row = new_row(j, k, "cached");
			fill_from_entry(row, &e);
			add_advice(row, &advice, NULL);
			emit_row(out, row);
			astra_entry_release(&e);
			astra_cache_queue_remove(cache, key.hex, o->gpu.cc);
			continue;
		}
		{
			struct astra_cache_lock lk = ASTRA_CACHE_LOCK_INIT;
			int got = astra_cache_lock(cache, key.hex, o->gpu.cc, (double)astra_config_int(ASTRA_CFG_LOCK_WAIT), &lk);
			if (got == 0) {
				row = new_row(j, k, "busy");
				astra_json_set_str(row, "reason", "another process is optimizing this kernel");
				emit_row(out, row);
				continue;
			}
			if (astra_cache_lookup(cache, key.hex, o->gpu.cc, &e) == 1) {
				row = new_row(j, k, "cached");
				fill_from_entry(row, &e);
				add_advice(row, &advice, NULL);
				emit_row(out, row);
				astra_entry_release(&e);
				astra_cache_unlock(&lk);
				continue;
			}
			astra_loop_run(&tu, k, &cl, &lo, &res);
			row = new_row(j, k, res.verdict == ASTRA_VERDICT_FASTER ? "optimized"
					    : res.verdict == ASTRA_VERDICT_NO_FASTER ? "no-faster-variant" : "failed");
			fill_from_loop(row, &res);
			add_advice(row, &advice, &res.advice);
			for (h = 0; h < res.hints.nr; h++)
				printf("%s %s: hint: %s\n", prefix, k->name, res.hints.v[h]);
			fflush(stdout);
			if (res.verdict != ASTRA_VERDICT_NONE) {
				e.key = xstrdup(key.hex);
				e.cc = o->gpu.cc;
				e.kernel = xstrdup(k->name);
				e.file = xstrdup(k->file);
				e.line = k->line;
				add_key_inputs(&e, &cl, arch, version.buf);
				astra_loop_fill_entry(&res, &lo, &e);
				astra_evidence_fill(&e, &res, k);
				free(e.nvcc_version);
				e.nvcc_version = xstrdup(version.buf);
				if (!e.device)
					e.device = xstrdup(o->gpu.name);
				free(e.driver);
				e.driver = xstrdup(o->gpu.driver);
				if (astra_cache_store(cache, &e, res.transcript, res.transcript ? strlen(res.transcript) : 0) < 0)
					astra_json_set_str(row, "store", "failed (see the log)");
				astra_cache_queue_remove(cache, key.hex, o->gpu.cc);
			}
			astra_cache_unlock(&lk);
			emit_row(out, row);
			astra_entry_release(&e);
			astra_loop_result_release(&res);
		}
	}
	astra_vec_clear(&advice);
	astra_buf_release(&blk);
	for (i = 0; i < tu.nr_kernels; i++)
		if (copies[i].name)
			astra_captured_kernel_release(&copies[i]);
	free(copies);
	astra_cache_close(cache);
	astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));
	free(arch);
	astra_buf_release(&version);
	astra_tu_release(&tu);
	astra_search_path_release(&sp);
	astra_cmdline_release(&cl);
	return 0;
}

/* ------------------------------------------------------------ parent */

/*
 * For a kernel whose launcher chooses per launch: which version runs at
 * each tested shape, with the confirming run's time of the original and
 * of every kept variant there.
 */
static void print_winners(const struct astra_json *r)
{
	const struct astra_json *cases = astra_json_get(r, "cases"), *vs = astra_json_get(r, "variants");
	const struct astra_json *ps = astra_json_get(r, "dispatch_params");
	size_t i, j, w = 0;
	if (!astra_json_get_bool(r, "dispatch", 0))
		return;
	printf("\n%s: %zu variants and the original, chosen per launch by", astra_json_get_str(r, "kernel"),
	       astra_json_len(vs));
	for (i = 0; i < astra_json_len(ps); i++)
		printf("%s %s", i ? "," : "", astra_json_str(astra_json_at(ps, i)));
	printf(":\n");
	for (i = 0; i < astra_json_len(vs); i++)
		printf("  v%zu = %s\n", i + 1, astra_json_str(astra_json_at(vs, i)));
	for (i = 0; i < astra_json_len(cases); i++)
		if (strlen(astra_json_get_str(astra_json_at(cases, i), "shape")) > w)
			w = strlen(astra_json_get_str(astra_json_at(cases, i), "shape"));
	for (i = 0; i < astra_json_len(cases); i++) {
		const struct astra_json *c = astra_json_at(cases, i), *t = astra_json_get(c, "versions_us");
		const char *runs = astra_json_get_str(c, "runs");
		char who[32] = "original";
		for (j = 0; j < astra_json_len(vs); j++)
			if (runs && !strcmp(runs, astra_json_str(astra_json_at(vs, j))))
				snprintf(who, sizeof(who), "v%zu", j + 1);
		printf("  %-*s  runs %-8s (", (int)w, astra_json_get_str(c, "shape"), who);
		for (j = 0; j < astra_json_len(t); j++) {
			if (j)
				printf(", v%zu", j);
			else
				printf("original");
			printf(" %.1f us", astra_json_num(astra_json_at(t, j), 0));
		}
		printf(")\n");
	}
}

static void print_table(struct astra_json **rows, size_t n, const struct opts *o)
{
	size_t i;
	double wait = 0;
	printf("\n%-28s %-16s %11s %11s %8s %9s %7s %7s  %s\n", "kernel", "types", "baseline", "best", "speedup",
	       "roofline", "rounds", "time", "rules / status");
	for (i = 0; i < n; i++) {
		struct astra_json *r = rows[i];
		const char *status = astra_json_get_str(r, "status");
		const char *kernel = astra_json_get_str(r, "kernel");
		const char *types = astra_json_get_str(r, "types");
		const char *rules = astra_json_get_str(r, "rules");
		const char *reason = astra_json_get_str(r, "reason");
		double base = astra_json_get_num(r, "baseline_us", 0), best = astra_json_get_num(r, "best_us", 0);
		double sp = astra_json_get_num(r, "speedup", 0), bw = astra_json_get_num(r, "best_bw_frac", 0);
		char c_base[32] = "-", c_best[32] = "-", c_sp[32] = "-", c_bw[32] = "-", c_rounds[16] = "-", c_t[16] = "-";
		wait += astra_json_get_num(r, "gpu_wait_seconds", 0);
		if (base > 0)
			snprintf(c_base, sizeof(c_base), "%.1f us", base);
		if (best > 0)
			snprintf(c_best, sizeof(c_best), "%.1f us", best);
		if (sp > 0)
			snprintf(c_sp, sizeof(c_sp), "%.2fx", sp);
		if (bw > 0)
			snprintf(c_bw, sizeof(c_bw), "%.0f%%", bw * 100);
		if (astra_json_get(r, "rounds"))
			snprintf(c_rounds, sizeof(c_rounds), "%d", (int)astra_json_get_num(r, "rounds", 0));
		if (astra_json_get(r, "seconds"))
			snprintf(c_t, sizeof(c_t), "%.0fs", astra_json_get_num(r, "seconds", 0));
		printf("%-28s %-16s %11s %11s %8s %9s %7s %7s  %s%s%s\n", kernel ? kernel : astra_json_get_str(r, "file"),
		       types && *types ? types : "-", c_base, c_best, c_sp, c_bw, c_rounds, c_t,
		       !strcmp(status, "optimized") || !strcmp(status, "cached") ? (rules ? rules : status) : status,
		       reason && strcmp(status, "optimized") ? ": " : "", reason && strcmp(status, "optimized") ? reason : "");
	}
	for (i = 0; i < n; i++)
		print_winners(rows[i]);
	if (wait >= 1)
		printf("\nThe times include %.0f s in all spent waiting for the GPU while other kernels ran on it.\n", wait);
	if (!o->gpu.present && !o->plan)
		printf("\nNo GPU here: the kernels were found, the rules' candidates were generated and compiled,\n"
		       "but nothing was verified or timed, and nothing was stored.  Run the same command on a\n"
		       "machine with a GPU to optimize.\n");
}

void astra_warmup_print_table(struct astra_json **rows, size_t n, int gpu_present)
{
	struct opts o;
	memset(&o, 0, sizeof(o));
	o.gpu.present = gpu_present;
	print_table(rows, n, &o);
}

/* Jobs for explicit items (the queue's, a plan's): each names its kernel. */
static void add_items(const struct astra_warmup_item *items, size_t n, const char *nvcc, struct job **jobs,
		      size_t *nr, size_t *alloc)
{
	size_t i;
	for (i = 0; i < n; i++) {
		struct job j = { 0 };
		astra_vec_init(&j.argv);
		astra_vec_pushv(&j.argv, items[i].argv.v, items[i].argv.nr);
		if (j.argv.nr)
			astra_vec_set(&j.argv, 0, nvcc);
		j.cwd = xstrdup(items[i].cwd);
		j.file = xstrdup(items[i].source);
		j.only_kernel = xstrdup(items[i].kernel);
		ALLOC_GROW(*jobs, *nr + 1, *alloc);
		(*jobs)[(*nr)++] = j;
	}
}

/*
 * The GPUs of this warmup (all, or --gpus), and the keys' architecture.
 * Returns 0, or -1 after saying why (a --gpus that names no GPU here, an
 * --arch that is not this GPU's).
 */
static int choose_gpus(const struct astra_warmup_request *rq, struct opts *o)
{
	struct astra_gpu *all = NULL;
	size_t nall = 0;
	char why[256] = "";
	char *err = NULL;
	int r;

	memset(&o->gpu, 0, sizeof(o->gpu));
	o->gpu.index = -1;
	if (rq->plan) {
		/* Planning needs no GPU: only the architecture the keys are for. */
		if (!rq->cc)
			astra_gpu_probe(o->nvcc, &o->gpu);
		o->cc = rq->cc ? rq->cc : o->gpu.present ? o->gpu.cc : 90;
		memset(&o->gpu, 0, sizeof(o->gpu));
		o->gpu.index = -1;
		return 0;
	}
	astra_gpu_list(o->nvcc, &all, &nall, why, sizeof(why));
	if (!nall) {
		astra_gpu_probe(o->nvcc, &o->gpu);
		if (rq->gpus && strcmp(rq->gpus, "all")) {
			fprintf(stderr, "%s: --gpus %s: %s\n", astra_progname, rq->gpus, o->gpu.why);
			return -1;
		}
		o->cc = rq->cc ? rq->cc : 90;
		return 0;
	}
	o->gpus = xcalloc(nall, sizeof(*o->gpus));
	r = astra_gpus_select(all, nall, rq->gpus, o->gpus, &err);
	free(all);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", astra_progname, err);
		free(err);
		return -1;
	}
	o->nr_gpus = (size_t)r;
	o->gpu = o->gpus[0];
	o->cc = o->gpu.cc;
	if (rq->cc && rq->cc != o->cc) {
		fprintf(stderr, "%s: the kernels are to be optimized for sm_%d, but %s is sm_%d\n", astra_progname,
			rq->cc, o->gpu.name, o->cc);
		return -1;
	}
	for (r = 1; r < (int)o->nr_gpus; r++)
		if (o->gpus[r].cc != o->cc) {
			fprintf(stderr, "%s: the GPUs are of different architectures (sm_%d, sm_%d): choose one kind "
				"with --gpus\n", astra_progname, o->cc, o->gpus[r].cc);
			return -1;
		}
	return 0;
}

int astra_warmup_run(const struct astra_warmup_request *rq)
{
	struct opts o = { 0 };
	struct job *jobs = NULL;
	size_t nr = 0, alloc = 0, i, nrows = 0, arows = 0;
	const struct astra_vec *files = &rq->files, *flags = &rq->flags;
	const char *db = rq->db;
	const char *nvcc = rq->nvcc;
	char *tmpdir, cwd[4096];
	struct astra_json **rows = NULL;
	int running = 0, failed = 0;
	size_t next = 0;
	pid_t *pids;
	int *busy = NULL;
	size_t *slot;

	o.jobs = rq->jobs;
	o.no_run = rq->no_run;
	o.plan = rq->plan;
	o.progress = rq->progress;
	o.max_rounds = rq->max_rounds;
	o.measure_all = rq->measure_all;
	o.json_out = rq->json_out;
	o.nvcc = nvcc;
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;

	for (i = 0; i < files->nr; i++) {
		struct job j = { 0 };
		astra_vec_init(&j.argv);
		astra_vec_push(&j.argv, nvcc);
		astra_vec_pushv(&j.argv, flags->v, flags->nr);
		astra_vec_push(&j.argv, "-c");
		astra_vec_push(&j.argv, files->v[i]);
		j.cwd = xstrdup(cwd);
		j.file = xstrdup(files->v[i]);
		ALLOC_GROW(jobs, nr + 1, alloc);
		jobs[nr++] = j;
	}
	if (db && load_compile_commands(db, nvcc, &jobs, &nr, &alloc) < 0)
		return 1;
	if (rq->items)
		add_items(rq->items, rq->nr_items, nvcc, &jobs, &nr, &alloc);
	else if (!files->nr && !db) {
		struct astra_cache *c = astra_cache_open(NULL);
		struct astra_warmup_item *items = NULL;
		size_t n = 0;
		if (astra_cache_queue_list(c, &items, &n) == 0) {
			add_items(items, n, nvcc, &jobs, &nr, &alloc);
			astra_warmup_items_free(items, n);
		}
		astra_cache_close(c);
		if (!nr) {
			printf("nothing to warm up: the queue is empty (give files, or -p BUILD_DIR)\n");
			return 0;
		}
	}

	if (choose_gpus(rq, &o) < 0) {
		for (i = 0; i < nr; i++)
			job_release(&jobs[i]);
		free(jobs);
		free(o.gpus);
		return 2;
	}
	if (o.jobs < 1) {
		/* The CPUs, at most 4, and at least one worker per GPU. */
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		o.jobs = ncpu > 4 ? 4 : ncpu > 0 ? (int)ncpu : 1;
		if (o.jobs < (int)o.nr_gpus)
			o.jobs = (int)o.nr_gpus;
	}
	if (o.plan)
		fprintf(stderr, "astra-cc warmup: planning %zu translation unit%s for sm_%d\n", nr, nr == 1 ? "" : "s",
			o.cc);
	else if (o.gpu.present && o.nr_gpus > 1) {
		char *which = astra_gpus_describe(o.gpus, o.nr_gpus);
		fprintf(stderr, "astra-cc warmup: %zu translation unit%s on %zu GPUs (sm_%d): %s; up to %d at a time\n",
			nr, nr == 1 ? "" : "s", o.nr_gpus, o.gpu.cc, which, o.jobs);
		free(which);
	} else if (o.gpu.present)
		fprintf(stderr, "astra-cc warmup: %zu translation unit%s on %s (sm_%d), up to %d at a time\n", nr,
			nr == 1 ? "" : "s", o.gpu.name, o.gpu.cc, o.jobs);
	else
		fprintf(stderr, "astra-cc warmup: %zu translation unit%s; no GPU here: kernels are found and the rules' "
			"candidates compiled, but nothing can be verified or timed\n", nr, nr == 1 ? "" : "s");
	fflush(stdout);

	/* GPU runs of concurrent workers are serialized by verify/verify.c. */
	o.gpu_lock = xasprintf("%s/gpu.lock", astra_config_str(ASTRA_CFG_DIR));
	setenv("ASTRA_CC_GPU_LOCK", o.gpu_lock, 1);
	tmpdir = xstrdup("/tmp/astra-warmup-XXXXXX");
	if (!mkdtemp(tmpdir))
		die_errno("mkdtemp");
	o.out_lock = xasprintf("%s/output.lock", tmpdir);
	pids = xcalloc(nr ? nr : 1, sizeof(pid_t));
	o.prog = astra_progress_start(astra_progress_choose(o.progress), nr);
	if (!o.gpu.present || o.no_run)
		astra_progress_not_verified(o.prog, o.gpu.present ? "--no-run" : "no GPU");
	slot = xcalloc(nr ? nr : 1, sizeof(*slot));
	if (o.nr_gpus && !o.no_run) {
		busy = xcalloc(o.nr_gpus, sizeof(*busy));
		/* The GPUs' lock files live there: a fresh cache must take turns too. */
		struct astra_storage *st = astra_storage_file_open(astra_config_str(ASTRA_CFG_DIR));
		(void)astra_storage_file_create(st);
		st->ops->close(st);
	}

	while (next < nr || running) {
		while (next < nr && running < o.jobs) {
			char *path = xasprintf("%s/%zu.jsonl", tmpdir, next);
			char *prefix = xasprintf("[%zu/%zu]", next + 1, nr);
			pid_t pid;
			/* One GPU for the worker's life: the least busy. */
			if (busy) {
				slot[next] = astra_gpus_pick(busy, o.nr_gpus);
				busy[slot[next]]++;
			}
			fflush(stdout);
			fflush(stderr);
			pid = fork();
			if (pid == 0) {
				FILE *out;
				astra_progress_child(o.prog, next);
				out = fopen(path, "w");
				if (!out)
					_exit(3);
				if (busy) {
					o.gpu = o.gpus[slot[next]];
					worker_gpu = o.gpu.index;
					astra_gpus_enter(&o.gpu, astra_config_str(ASTRA_CFG_DIR));
				}
				run_job(&jobs[next], &o, out, prefix);
				fclose(out);
				fflush(stdout);
				_exit(0);
			}
			pids[next] = pid;
			free(path);
			free(prefix);
			next++;
			running++;
		}
		{
			int st;
			pid_t w = astra_progress_wait(o.prog, &st);
			if (w < 0 && errno == ECHILD)
				break;
			if (w > 0) {
				running--;
				if (!WIFEXITED(st) || WEXITSTATUS(st))
					failed++;
				for (i = 0; busy && i < next; i++)
					if (pids[i] == w) {
						busy[slot[i]]--;
						break;
					}
			}
		}
	}

	for (i = 0; i < nr; i++) {
		char *path = xasprintf("%s/%zu.jsonl", tmpdir, i);
		struct astra_buf b = ASTRA_BUF_INIT;
		char *line, *save = NULL;
		if (astra_buf_read_file(&b, path, 0) == 0) {
			for (line = strtok_r(b.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
				struct astra_json *r = astra_json_parse(line, strlen(line));
				if (!r)
					continue;
				ALLOC_GROW(rows, nrows + 1, arows);
				rows[nrows++] = r;
			}
		} else {
			struct astra_json *r = new_row(&jobs[i], NULL, "error");
			astra_json_set_str(r, "reason", "the worker died");
			ALLOC_GROW(rows, nrows + 1, arows);
			rows[nrows++] = r;
		}
		unlink(path);
		free(path);
		astra_buf_release(&b);
	}
	unlink(o.out_lock);
	rmdir(tmpdir);
	if (o.plan && rq->plan_rows && rq->plan_rows(rows, nrows, rq->plan_data) < 0)
		failed++;
	astra_progress_end(o.prog);
	print_table(rows, nrows, &o);

	if (o.json_out) {
		struct astra_json *doc = astra_json_new_object();
		struct astra_json *arr = astra_json_set_array(doc, "kernels");
		struct astra_buf version = ASTRA_BUF_INIT;
		char *text;
		FILE *f;
		astra_json_set_str(doc, "device", o.gpu.present ? o.gpu.name : "none");
		astra_json_set_num(doc, "cc", o.gpu.cc);
		astra_json_set_str(doc, "driver", o.gpu.driver);
		if (o.nr_gpus && !o.no_run) {
			struct astra_json *g = astra_json_set_array(doc, "gpus");
			for (i = 0; i < o.nr_gpus; i++) {
				struct astra_json *x = astra_json_new_object();
				astra_json_set_num(x, "index", o.gpus[i].index);
				astra_json_set_str(x, "uuid", o.gpus[i].uuid);
				astra_json_set_str(x, "name", o.gpus[i].name);
				astra_json_push(g, x);
			}
			astra_json_set_num(doc, "jobs", o.jobs);
		}
		astra_key_nvcc_version(nvcc, astra_config_str(ASTRA_CFG_DIR), &version);
		{
			/* "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0.88" */
			const char *v = strstr(version.buf, ", V");
			char *rel = v ? xstrndup(v + 3, strcspn(v + 3, " \n")) : xstrdup(version.buf);
			astra_json_set_str(doc, "nvcc", rel);
			free(rel);
		}
		astra_json_set_str(doc, "astra_cc", PACKAGE_VERSION);
		for (i = 0; i < nrows; i++) {
			astra_json_push(arr, rows[i]);
			rows[i] = NULL;
		}
		text = astra_json_print(doc, 1);
		f = fopen(o.json_out, "w");
		if (f) {
			fputs(text, f);
			fputc('\n', f);
			fclose(f);
		} else {
			fprintf(stderr, "%s: cannot write %s: %s\n", astra_progname, o.json_out, strerror(errno));
		}
		free(text);
		astra_buf_release(&version);
		astra_json_free(doc);
	}
	for (i = 0; i < nrows; i++)
		astra_json_free(rows[i]);
	free(rows);
	for (i = 0; i < nr; i++)
		job_release(&jobs[i]);
	free(jobs);
	free(pids);
	free(slot);
	free(busy);
	free(o.gpus);
	free(tmpdir);
	free(o.gpu_lock);
	free(o.out_lock);
	return failed ? 1 : 0;
}
