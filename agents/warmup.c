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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents/captured.h"
#include "agents/evidence.h"
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
	const char *json_out;
	const char *nvcc;
	struct astra_gpu gpu;
	char *gpu_lock;
};

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

/* ------------------------------------------------------------ worker */

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
	if (r->best.origin)
		astra_json_set_str(row, "rules", r->best.origin);
	astra_json_set_num(row, "rounds", r->rounds);
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
	if (r->have_evidence && r->evidence.nr_cases) {
		const struct astra_verify_result *v = &r->evidence;
		struct astra_json *cases = astra_json_set_array(row, "cases");
		for (i = 0; i < v->nr_cases; i++) {
			struct astra_json *c = astra_json_new_object();
			astra_json_set_str(c, "shape", v->labels[i]);
			astra_json_set_num(c, "bytes", v->bytes[i]);
			if (v->baseline && v->baseline[i].timed)
				astra_json_set_num(c, "baseline_us", v->baseline[i].timing.median);
			if (v->nr_cands == 1 && v->cands[0].cases && v->cands[0].cases[i].timed) {
				astra_json_set_num(c, "variant_us", v->cands[0].cases[i].timing.median);
				astra_json_set_num(c, "speedup", v->cands[0].cases[i].speedup);
				astra_json_set_num(c, "cmp", v->cands[0].cases[i].cmp);
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

static void explain_kernel(const struct astra_kernel *k, int cc)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	astra_rules_explain(k, cc, &b);
	fputs(b.buf, stdout);
	astra_buf_release(&b);
}

/* What a capture gave the test of k: the shapes with where each came from, and what was inferred. */
static void print_captured(const char *prefix, const struct astra_kernel *k, const struct astra_captured_info *ci)
{
	size_t i;
	printf("%s %s: %zu test shape%s (%zu from the pragma, %zu of %zu captured from %lld launch%s in %lld run%s)\n",
	       prefix, k->name, ci->shapes.nr, ci->shapes.nr == 1 ? "" : "s", ci->nr_pragma, ci->nr_used,
	       ci->nr_captured, ci->launches, ci->launches == 1 ? "" : "es", ci->runs, ci->runs == 1 ? "" : "s");
	for (i = 0; i < ci->shapes.nr; i++)
		printf("%s   shape %s\n", prefix, ci->shapes.v[i]);
	for (i = 0; i < ci->notes.nr; i++)
		printf("%s   note: %s\n", prefix, ci->notes.v[i]);
	fflush(stdout);
}

static int run_job(const struct job *j, const struct opts *o, FILE *out, const char *prefix)
{
	struct astra_cmdline cl;
	struct astra_tu tu;
	struct astra_search_path sp;
	struct astra_cache *cache;
	struct astra_buf version = ASTRA_BUF_INIT;
	struct astra_kernel *copies;
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
	arch = o->gpu.present ? xasprintf("sm_%d", o->gpu.cc) : xstrdup("sm_90");
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
		cr = astra_captured_kernel(cache, key.hex, o->gpu.present ? o->gpu.cc : 90, k, &copies[i], &ci);
		if (cr < 0) {
			/* `#pragma astra optimize` alone and nothing captured: say how to capture. */
			printf("%s %s (%s:%u): %s\n", prefix, k->name, k->file, k->line, ci.missing);
			fflush(stdout);
			row = new_row(j, k, "needs-capture");
			astra_json_set_str(row, "reason", ci.missing);
			emit_row(out, row);
			astra_captured_info_release(&ci);
			astra_captured_kernel_release(&copies[i]);
			continue;
		}
		if (cr > 0)
			print_captured(prefix, k, &ci);
		astra_captured_info_release(&ci);
		k = &copies[i];
		lo.nvcc = o->nvcc;
		lo.max_rounds = o->max_rounds;
		lo.progress = astra_progress_loop;
		lo.progress_data = o->prog;

		if (!o->gpu.present || o->no_run) {
			printf("%s %s (%s:%u): rules that apply:\n", prefix, k->name, k->file, k->line);
			explain_kernel(k, o->gpu.present ? o->gpu.cc : 90);
			lo.no_run = 1;
			lo.max_rounds = 1;
			astra_loop_run(&tu, k, &cl, &lo, &res);
			row = new_row(j, k, "not-run");
			astra_json_set_num(row, "tried", (double)res.tried);
			astra_json_set_num(row, "compiled", (double)res.compiled);
			astra_json_set_str(row, "reason", o->gpu.present ? "--no-run" : "no GPU: verification and timing need one");
			printf("%s %s: %zu candidate%s generated, %zu compiled with nvcc; not verified: %s\n", prefix, k->name,
			       res.tried, res.tried == 1 ? "" : "s", res.compiled,
			       o->gpu.present ? "--no-run" : "no GPU on this machine (verification runs the kernels)");
			fflush(stdout);
			emit_row(out, row);
			astra_loop_result_release(&res);
			continue;
		}

		astra_entry_init(&e);
		if (astra_cache_lookup(cache, key.hex, o->gpu.cc, &e) == 1) {
			row = new_row(j, k, "cached");
			fill_from_entry(row, &e);
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
				emit_row(out, row);
				astra_entry_release(&e);
				astra_cache_unlock(&lk);
				continue;
			}
			astra_loop_run(&tu, k, &cl, &lo, &res);
			row = new_row(j, k, res.verdict == ASTRA_VERDICT_FASTER ? "optimized"
					    : res.verdict == ASTRA_VERDICT_NO_FASTER ? "no-faster-variant" : "failed");
			fill_from_loop(row, &res);
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
		       types ? types : "", c_base, c_best, c_sp, c_bw, c_rounds, c_t,
		       !strcmp(status, "optimized") || !strcmp(status, "cached") ? (rules ? rules : status) : status,
		       reason && strcmp(status, "optimized") ? ": " : "", reason && strcmp(status, "optimized") ? reason : "");
	}
	if (wait >= 1)
		printf("\nThe times include %.0f s in all spent waiting for the GPU while other kernels ran on it.\n", wait);
	if (!o->gpu.present)
		printf("\nNo GPU here: the kernels were found, the rules' candidates were generated and compiled,\n"
		       "but nothing was verified or timed, and nothing was stored.  Run the same command on a\n"
		       "machine with a GPU to optimize.\n");
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

	o.jobs = rq->jobs < 1 ? 1 : rq->jobs;
	o.no_run = rq->no_run;
	o.progress = rq->progress;
	o.max_rounds = rq->max_rounds;
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
	if (!files->nr && !db) {
		struct astra_cache *c = astra_cache_open(NULL);
		struct astra_warmup_item *items = NULL;
		size_t n = 0;
		if (astra_cache_queue_list(c, &items, &n) == 0) {
			for (i = 0; i < n; i++) {
				struct job j = { 0 };
				astra_vec_init(&j.argv);
				astra_vec_pushv(&j.argv, items[i].argv.v, items[i].argv.nr);
				if (j.argv.nr)
					astra_vec_set(&j.argv, 0, nvcc);
				j.cwd = xstrdup(items[i].cwd);
				j.file = xstrdup(items[i].source);
				j.only_kernel = xstrdup(items[i].kernel);
				ALLOC_GROW(jobs, nr + 1, alloc);
				jobs[nr++] = j;
			}
			astra_warmup_items_free(items, n);
		}
		astra_cache_close(c);
		if (!nr) {
			printf("nothing to warm up: the queue is empty (give files, or -p BUILD_DIR)\n");
			return 0;
		}
	}

	astra_gpu_probe(o.nvcc, &o.gpu);
	if (o.gpu.present)
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
	pids = xcalloc(nr ? nr : 1, sizeof(pid_t));
	o.prog = astra_progress_start(astra_progress_choose(o.progress), nr);

	while (next < nr || running) {
		while (next < nr && running < o.jobs) {
			char *path = xasprintf("%s/%zu.jsonl", tmpdir, next);
			char *prefix = xasprintf("[%zu/%zu]", next + 1, nr);
			pid_t pid;
			fflush(stdout);
			fflush(stderr);
			pid = fork();
			if (pid == 0) {
				FILE *out;
				astra_progress_child(o.prog, next);
				out = fopen(path, "w");
				if (!out)
					_exit(3);
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
	rmdir(tmpdir);
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
	free(tmpdir);
	free(o.gpu_lock);
	return failed ? 1 : 0;
}
