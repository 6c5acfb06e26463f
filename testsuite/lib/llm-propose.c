/*
 * llm-propose.c - drive the "llm" optimizer the way the loop will, for
 * hermetic tests (until agents/loop.c and `astra-cc --warmup` exist).
 *
 * It reads one annotated kernel from a .cu file, runs --rounds rounds of
 * propose() with the settings from the environment (ASTRA_CC_LLM_URL,
 * ...), compiles each candidate alone with $NVCC through the same
 * try_compile callback the loop offers, feeds every candidate back as an
 * attempt that was not verified (there is no GPU here), prints what it got,
 * stores the verdict ("failed": nothing was verified) with the transcript
 * in the cache as the loop will, and flushes the statistics.  It always exits 0 unless it is used wrongly: the LLM's
 * failures must never fail a build.
 *
 * Usage: llm-propose [--rounds N] [--cc N] [--profile] [--history]
 *                    [--no-compile] [--transcript FILE] FILE.cu [-- NVCC-FLAGS...]
 *        llm-propose --show-request REQUEST.json
 *        llm-propose --check ORIGINAL.cu CANDIDATE
 *
 * --show-request prints a recorded request in a normal form (the members,
 * then each message's role and text) so that a prompt change is a
 * readable diff in the test that compares it with a recorded request.
 * --check runs the candidate check (what an LLM's code block goes through)
 * on CANDIDATE against the annotated kernel of ORIGINAL.cu and prints
 * "ok" with the launch line's geometry, or the reason for the rejection.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/arch.h"
#include "agents/llm-answer.h"
#include "front/key.h"
#include "cache/store.h"
#include "front/extract.h"
#include "agents/opt-llm.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/nvccopts.h"
#include "lib/run.h"
#include "cache/stats.h"

struct driver {
	const struct astra_tu *tu;
	const struct astra_kernel *k;
	struct astra_vec flags;
	int compiles;
};

static int show_request(const char *path)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_json *j, *msgs;
	size_t i;

	if (astra_buf_read_file(&b, path, 0) < 0 || !(j = astra_json_parse(b.buf, b.len))) {
		fprintf(stderr, "llm-propose: %s: not a JSON request\n", path);
		return 2;
	}
	for (i = 0; i < astra_json_len(j); i++) {
		const struct astra_json *m = astra_json_at(j, i);
		char *v;
		if (!strcmp(astra_json_key(m), "messages"))
			continue;
		v = astra_json_print(m, 0);
		printf("%s: %s\n", astra_json_key(m), v);
		free(v);
	}
	msgs = astra_json_get(j, "messages");
	for (i = 0; i < astra_json_len(msgs); i++) {
		const struct astra_json *m = astra_json_at(msgs, i);
		const char *c = astra_json_get_str(m, "content");
		printf("--- %s\n%s", astra_json_get_str(m, "role") ? astra_json_get_str(m, "role") : "?", c ? c : "");
		if (c && *c && c[strlen(c) - 1] != '\n')
			putchar('\n');
	}
	astra_json_free(j);
	astra_buf_release(&b);
	return 0;
}

/* Where the key looks for headers: the toolchain of $NVCC (as the driver's). */
static struct astra_search_path search;

/* The first annotated kernel of path, extracted into tu; NULL (reported) if none. */
static const struct astra_kernel *first_kernel(struct astra_tu *tu, const char *path,
					       const struct astra_cmdline *cl)
{
	const char *nvcc = astra_getenv("NVCC");
	memset(tu, 0, sizeof(*tu));
	if (nvcc && !search.nr && !search.host_known)
		astra_search_path_add_toolchain(&search, cl, nvcc, astra_config_str(ASTRA_CFG_DIR));
	tu->search = nvcc ? &search : NULL;
	if (astra_extract_tu(tu, path, cl) < 0 || !tu->nr_kernels) {
		fprintf(stderr, "llm-propose: %s: no annotated kernel\n", path);
		return NULL;
	}
	return &tu->kernels[0];
}

static int check(const char *orig, const char *cand)
{
	struct astra_buf b = ASTRA_BUF_INIT, why = ASTRA_BUF_INIT;
	struct astra_tu tu;
	const struct astra_kernel *k = first_kernel(&tu, orig, NULL);
	struct astra_variant v;

	if (!k || astra_buf_read_file(&b, cand, 0) < 0) {
		astra_tu_release(&tu);
		return 2;
	}
	if (astra_llm_check_candidate(k, b.buf, &v, &why) == 0) {
		printf("%s: ok", k->name);
		if (v.grid)
			printf(" (launch grid=%s block=%s%s%s)", v.grid, v.block, v.shmem ? " shmem=" : "",
			       v.shmem ? v.shmem : "");
		printf("\n");
		astra_variant_release(&v);
	} else {
		printf("%s: rejected: %s\n", k->name, why.buf);
	}
	astra_tu_release(&tu);
	astra_buf_release(&b);
	astra_buf_release(&why);
	return 0;
}

/* The loop's try_compile: the TU with the kernel replaced by the candidate. */
static int try_compile(void *arg, const struct astra_variant *v, struct astra_buf *errors)
{
	struct driver *d = arg;
	const char *nvcc = astra_getenv("NVCC");
	struct astra_buf tu = ASTRA_BUF_INIT;
	struct astra_vec argv = ASTRA_VEC_INIT;
	struct astra_run_opts opts;
	FILE *f;
	int rc;

	if (!nvcc)
		return 0;
	astra_buf_add(&tu, d->tu->text, d->k->start);
	astra_buf_adds(&tu, v->text);
	astra_buf_add(&tu, d->tu->text + d->k->end, d->tu->len - d->k->end);
	f = fopen("llm-candidate.cu", "w");
	if (!f || fwrite(tu.buf, 1, tu.len, f) != tu.len || fclose(f)) {
		astra_buf_release(&tu);
		astra_buf_adds(errors, "cannot write llm-candidate.cu");
		return -1;
	}
	astra_buf_release(&tu);
	astra_vec_push(&argv, nvcc);
	astra_vec_pushv(&argv, d->flags.v, d->flags.nr);
	astra_vec_push(&argv, "-c");
	astra_vec_push(&argv, "llm-candidate.cu");
	astra_vec_push(&argv, "-o");
	astra_vec_push(&argv, "llm-candidate.o");
	memset(&opts, 0, sizeof(opts));
	opts.err = errors;
	opts.out = errors;
	opts.timeout = 120;
	rc = astra_run(argv.v, &opts);
	astra_vec_clear(&argv);
	d->compiles++;
	printf("compile %d: %s\n", d->compiles, rc == 0 ? "ok" : "failed");
	return rc == 0 ? 0 : -1;
}

/*
 * Store what the loop would store for this kernel: without a GPU nothing
 * was verified, so the verdict is "failed" with that reason, and the
 * transcript goes beside it.  The key is written to ./entry-key for tests
 * (`astra-cc --show-entry $(cat entry-key) --transcript`).
 */
static void store_entry(const struct astra_tu *tu, const struct astra_kernel *k,
			const struct astra_cmdline *cl, int cc, const char *transcript)
{
	struct astra_cache *c = astra_cache_open(NULL);
	struct astra_vec archs = ASTRA_VEC_INIT;
	struct astra_buf ver = ASTRA_BUF_INIT;
	struct astra_entry e;
	struct astra_key key;
	const char *nvcc = astra_getenv("NVCC");
	FILE *f;

	if (!nvcc || astra_key_nvcc_version(nvcc, astra_cache_dir(c), &ver) < 0)
		astra_buf_adds(&ver, "unknown");
	if (astra_arch_targets(cl, &archs) < 0 || !archs.nr)
		astra_vec_push(&archs, "default");
	astra_key_compute(tu, k, cl, archs.v[0], ver.buf, &key, NULL);
	astra_entry_init(&e);
	e.key = xstrdup(key.hex);
	e.cc = cc ? cc : 90;
	e.verdict = ASTRA_VERDICT_FAILED;
	e.reason = xstrdup("llm-propose: the candidates were not verified (no GPU in this test)");
	e.kernel = xstrdup(k->name);
	e.file = xstrdup(k->file ? k->file : tu->path);
	e.line = k->line;
	e.optimizer = xstrdup("llm");
	e.model = xstrdup(astra_config_str(ASTRA_CFG_LLM_MODEL));
	if (astra_cache_store(c, &e, transcript, transcript ? strlen(transcript) : 0) == 0) {
		f = fopen("entry-key", "w");
		if (f) {
			fprintf(f, "%s\n", key.hex);
			fclose(f);
		}
	}
	astra_entry_release(&e);
	astra_vec_clear(&archs);
	astra_buf_release(&ver);
	astra_cache_close(c);
}

static void canned_profile(struct astra_profile *p)
{
	memset(p, 0, sizeof(*p));
	p->time_us = 41.3;
	p->spread = 0.012;
	p->bytes = 8.0e6;
	p->bw_frac = 0.062;
	p->flops = 1.0e6;
	p->flop_frac = 0.001;
	p->regs = 18;
	p->spills = 0;
}

static void push_attempt(struct astra_attempt **h, size_t *nr, size_t *alloc, const char *origin,
			 const char *text, int compiled, int accepted, const char *reason, double speedup)
{
	struct astra_attempt *a;
	ALLOC_GROW(*h, *nr + 1, *alloc);
	a = &(*h)[(*nr)++];
	a->origin = xstrdup(origin);
	a->text = xstrdup(text);
	a->compiled = compiled;
	a->accepted = accepted;
	a->reason = reason ? xstrdup(reason) : NULL;
	a->speedup = speedup;
}

int main(int argc, char **argv)
{
	const char *path = NULL, *transcript_path = NULL;
	int rounds = 1, cc = 0, profile = 0, history = 0, compile = 1, i, r;
	const struct astra_kernel *k;
	struct astra_tu tu;
	struct astra_cmdline cl;
	struct astra_profile base;
	struct astra_optimizer *opt;
	struct astra_opt_context ctx;
	struct astra_attempt *hist = NULL;
	size_t nr_hist = 0, alloc_hist = 0, h;
	struct astra_vec clargv = ASTRA_VEC_INIT;
	struct driver d;
	char *t;

	memset(&d, 0, sizeof(d));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--show-request") && i + 1 < argc)
			return show_request(argv[i + 1]);
		else if (!strcmp(argv[i], "--check") && i + 2 < argc)
			return check(argv[i + 1], argv[i + 2]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cc") && i + 1 < argc)
			cc = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--profile"))
			profile = 1;
		else if (!strcmp(argv[i], "--history"))
			history = 1;
		else if (!strcmp(argv[i], "--no-compile"))
			compile = 0;
		else if (!strcmp(argv[i], "--transcript") && i + 1 < argc)
			transcript_path = argv[++i];
		else if (!strcmp(argv[i], "--")) {
			astra_vec_pushv(&d.flags, argv + i + 1, (size_t)(argc - i - 1));
			break;
		} else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: llm-propose [options] FILE.cu [-- NVCC-FLAGS]\n");
		return 2;
	}

	astra_config_load();
	astra_log_open(astra_config_str(ASTRA_CFG_LOG_FILE), astra_config_str(ASTRA_CFG_TRACE));
	astra_vec_push(&clargv, "nvcc");
	astra_vec_pushv(&clargv, d.flags.v, d.flags.nr);
	astra_vec_push(&clargv, "-c");
	astra_vec_push(&clargv, path);
	memset(&cl, 0, sizeof(cl));
	astra_cmdline_parse(&cl, (int)clargv.nr, clargv.v);
	k = first_kernel(&tu, path, &cl);
	if (!k) {
		astra_tu_release(&tu);
		return 2;
	}
	d.tu = &tu;
	d.k = k;

	if (history) {
		push_attempt(&hist, &nr_hist, &alloc_hist, "rules: vectorize", "", 1, 1, NULL, 1.31);
		push_attempt(&hist, &nr_hist, &alloc_hist, "llm: stub-model", "", 1, 0,
			     "output `y` differs at index 999 (shape n=1000): got 1.5, expected 2.5", 0);
	}
	canned_profile(&base);
	opt = astra_llm_optimizer_new();

	for (r = 0; r < rounds; r++) {
		struct astra_variant out[2];
		int n;
		memset(&ctx, 0, sizeof(ctx));
		memset(out, 0, sizeof(out));
		ctx.tu = &tu;
		ctx.kernel = k;
		ctx.cl = &cl;
		ctx.baseline = profile ? &base : NULL;
		ctx.history = hist;
		ctx.nr_history = nr_hist;
		ctx.round = r;
		ctx.cc = cc;
		ctx.try_compile = compile ? try_compile : NULL;
		ctx.loop = &d;
		n = opt->propose(opt, &ctx, out, 1);
		if (n < 0) {
			printf("round %d: the optimizer failed\n", r);
			continue;
		}
		printf("round %d: %d candidate%s\n", r, n, n == 1 ? "" : "s");
		for (i = 0; i < n; i++) {
			printf("--- candidate (%s)", out[i].origin);
			if (out[i].grid)
				printf(" launch grid=%s block=%s shmem=%s", out[i].grid, out[i].block,
				       out[i].shmem ? out[i].shmem : "0");
			printf("\n%s--- end\n", out[i].text);
			push_attempt(&hist, &nr_hist, &alloc_hist, out[i].origin, out[i].text, 1, 0,
				     "not verified: no GPU in this test", 0);
			astra_variant_release(&out[i]);
		}
	}

	/* As the loop will: the verdict and the transcript into the cache. */
	t = opt->transcript(opt);
	store_entry(&tu, k, &cl, cc, t);
	if (t && transcript_path) {
		FILE *f = fopen(transcript_path, "w");
		if (f) {
			fputs(t, f);
			fclose(f);
		}
	}
	free(t);
	opt->free(opt);
	astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));

	for (h = 0; h < nr_hist; h++) {
		free(hist[h].origin);
		free(hist[h].text);
		free(hist[h].reason);
	}
	free(hist);
	astra_cmdline_release(&cl);
	astra_vec_clear(&clargv);
	astra_vec_clear(&d.flags);
	astra_tu_release(&tu);
	astra_log_close();
	return 0;
}
