/*
 * plan.c - warmup on a cluster (see plan.h).
 *
 * Why a plan file and a job array rather than a scheduler of our own:
 * clusters already have one (Slurm), with its queues, accounting, GPU
 * allocation (`--gres=gpu:1` gives each task its own card through
 * CUDA_VISIBLE_DEVICES) and retries; astra-cc's part is to cut the work
 * into independent items and to make running an item twice harmless.
 *
 * An item is one kernel key: the item's task extracts its translation
 * unit again (keys are cheap; the compile command is in the plan) and
 * runs warmup's worker on that one kernel, so a task does exactly what
 * `astra-cc --warmup FILE.cu` would do for it.  Results are small JSON
 * files beside the plan, written atomically, each naming the plan's id
 * and the item's key so that a result of an older plan of the same name
 * is never taken for this one's.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agents/plan.h"
#include "agents/warmup.h"
#include "verify/gpu.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/util.h"
#include "cache/stats.h"
#include "cache/store.h"

#define PLAN_FORMAT "astra-cc warmup plan 1"

/* Write path atomically (a temporary file in its directory, then rename). */
static int write_atomic(const char *path, const char *text)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	int ok;
	if (!f) {
		free(tmp);
		return -1;
	}
	ok = fputs(text, f) >= 0;
	ok &= fclose(f) == 0;
	if (!ok || rename(tmp, path) < 0) {
		int saved = errno;
		unlink(tmp);
		free(tmp);
		errno = saved;
		return -1;
	}
	free(tmp);
	return 0;
}

static char *abs_path(const char *p)
{
	char cwd[4096];
	if (p[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(p);
	return xasprintf("%s/%s", cwd, p);
}

/* FILE.d/<sub>, or FILE.d/<sub>/item-N.<ext> when n >= 0. */
static char *plan_path(const char *plan, const char *sub, long n, const char *ext)
{
	if (n < 0)
		return xasprintf("%s.d/%s", plan, sub);
	return xasprintf("%s.d/%s/item-%ld.%s", plan, sub, n, ext);
}

/* ------------------------------------------------------------ --plan */

struct make_data {
	const char *plan;  /* absolute */
	const char *gres;  /* the job script's --gres, or NULL for none */
	int cc;
	long items;
};

int astra_plan_gres_ok(const char *s)
{
	const char *p;
	if (!s || !isalnum((unsigned char)*s))
		return 0;
	/* What goes on an #SBATCH line: Slurm's name[:type][:count][,...], nothing that ends the line. */
	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.:,-", *p))
			return 0;
	return 1;
}

static int is_planned(struct astra_json *r)
{
	const char *st = astra_json_get_str(r, "status");
	return st && !strcmp(st, "planned");
}

/* The rows of warmup's plan mode, in order: write FILE, FILE.sbatch, FILE.d/. */
static int write_plan(struct astra_json **rows, size_t n, void *data)
{
	struct make_data *md = data;
	struct astra_json *doc = astra_json_new_object();
	struct astra_json *items = NULL, *other = NULL;
	struct astra_buf sb = ASTRA_BUF_INIT, q = ASTRA_BUF_INIT;
	char *text, *id, *self, *dir, *sbatch, *logs;
	size_t i, k;
	int ret = 0;

	id = xasprintf("%lld-%ld-%08lx", (long long)time(NULL), (long)getpid(),
		       (unsigned long)(astra_now() * 1e6) & 0xffffffffUL);
	astra_json_set_str(doc, "format", PLAN_FORMAT);
	astra_json_set_str(doc, "id", id);
	astra_json_set_num(doc, "created", (double)time(NULL));
	astra_json_set_str(doc, "astra_cc", PACKAGE_VERSION);
	for (i = 0; i < n && !md->cc; i++)
		md->cc = (int)astra_json_get_num(rows[i], "cc", 0);
	if (!md->cc)
		md->cc = 90;
	astra_json_set_num(doc, "cc", md->cc);
	items = astra_json_set_array(doc, "items");
	other = astra_json_set_array(doc, "not_planned");
	for (i = 0; i < n; i++) {
		struct astra_json *r = rows[i];
		const char *key = astra_json_get_str(r, "key");
		if (!is_planned(r)) {
			astra_json_push(other, astra_json_dup(r));
			continue;
		}
		/* One item per key: a kernel in a header that two files include is one item. */
		for (k = 0; k < astra_json_len(items); k++)
			if (!strcmp(astra_json_get_str(astra_json_at(items, k), "key"), key))
				break;
		if (k < astra_json_len(items))
			continue;
		r = astra_json_dup(r);
		astra_json_remove(r, "status");
		astra_json_set_num(r, "item", (double)md->items++);
		astra_json_push(items, r);
	}
	text = astra_json_print(doc, 1);
	astra_buf_adds(&q, text);
	astra_buf_addch(&q, '\n');
	free(text);

	dir = xasprintf("%s.d", md->plan);
	logs = plan_path(md->plan, "logs", -1, NULL);
	text = plan_path(md->plan, "results", -1, NULL);
	if ((mkdir(dir, 0777) < 0 && errno != EEXIST) || (mkdir(logs, 0777) < 0 && errno != EEXIST) ||
	    (mkdir(text, 0777) < 0 && errno != EEXIST)) {
		fprintf(stderr, "%s: cannot make %s: %s\n", astra_progname, dir, strerror(errno));
		ret = -1;
	} else if (write_atomic(md->plan, q.buf) < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", astra_progname, md->plan, strerror(errno));
		ret = -1;
	}
	free(text);

	/* The job array.  Options given to sbatch on its command line override these lines. */
	sbatch = xasprintf("%s.sbatch", md->plan);
	self = astra_self_path();
	astra_buf_reset(&q);
	if (!ret && md->items) {
		astra_buf_addf(&sb, "#!/bin/bash\n"
			       "# A Slurm job array for the warmup plan %s: %ld kernel%s, one task each.\n"
			       "# Written by `astra-cc --warmup --plan`; submit with `sbatch %s`\n"
			       "# (options on sbatch's command line, such as --partition, override the lines below).\n"
			       "# Every task stores its verdict in the shared cache (remote_storage: set it in the\n"
			       "# configuration the nodes read, or in the environment sbatch exports).\n"
			       "# Then: astra-cc --warmup --report --plan %s\n",
			       md->plan, md->items, md->items == 1 ? "" : "s", sbatch, md->plan);
		astra_buf_addf(&sb, "#SBATCH --job-name=astra-warmup\n#SBATCH --array=0-%ld\n", md->items - 1);
		if (md->gres)
			astra_buf_addf(&sb, "#SBATCH --gres=%s\n", md->gres);
		else
			astra_buf_adds(&sb, "# No --gres line (--gres none): the tasks get no GPU; each generates and compiles\n"
				       "# its candidates and records not-run (doc/cluster.md, \"Without GPU gres\").\n");
		/* Not a shell line: Slurm takes the path as it is (%a: the task's index). */
		astra_buf_addf(&sb, "#SBATCH --output=%s/item-%%a.out\n", logs);
		astra_buf_adds(&sb, "exec ");
		astra_buf_add_shell_quoted(&sb, self ? self : "astra-cc");
		astra_buf_adds(&sb, " --warmup --item \"$SLURM_ARRAY_TASK_ID\" --plan ");
		astra_buf_add_shell_quoted(&sb, md->plan);
		astra_buf_addch(&sb, '\n');
		if (write_atomic(sbatch, sb.buf) < 0 || chmod(sbatch, 0755) < 0) {
			fprintf(stderr, "%s: cannot write %s: %s\n", astra_progname, sbatch, strerror(errno));
			ret = -1;
		}
	} else if (!ret) {
		unlink(sbatch);
	}
	if (!ret)
		fprintf(stderr, "astra-cc warmup: %s: %ld item%s for sm_%d%s%s\n", md->plan, md->items,
			md->items == 1 ? "" : "s", md->cc, md->items ? "; job array: " : " (every kernel is cached)",
			md->items ? sbatch : "");
	free(self);
	free(sbatch);
	free(logs);
	free(dir);
	free(id);
	astra_buf_release(&sb);
	astra_buf_release(&q);
	astra_json_free(doc);
	return ret;
}

int astra_plan_make(struct astra_warmup_request *rq, const char *plan, const char *gres)
{
	struct make_data md;
	int ret;
	md.plan = abs_path(plan);
	md.gres = !gres ? "gpu:1" : strcmp(gres, "none") ? gres : NULL;
	md.cc = rq->cc ? rq->cc : 0;
	md.items = 0;
	rq->plan = 1;
	rq->plan_rows = write_plan;
	rq->plan_data = &md;
	/* write_plan learns the architecture from the rows: warmup decides it. */
	ret = astra_warmup_run(rq);
	free((char *)md.plan);
	return ret;
}

/* ------------------------------------------------------------ plans on disk */

static struct astra_json *read_json(const char *path, int quiet)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_json *j;
	if (astra_buf_read_file(&b, path, 64u << 20) < 0) {
		if (!quiet)
			fprintf(stderr, "%s: cannot read %s: %s\n", astra_progname, path, strerror(errno));
		return NULL;
	}
	j = astra_json_parse(b.buf, b.len);
	astra_buf_release(&b);
	if (!j && !quiet)
		fprintf(stderr, "%s: %s: not JSON\n", astra_progname, path);
	return j;
}

static struct astra_json *read_plan(const char *plan)
{
	struct astra_json *p = read_json(plan, 0);
	const char *fmt = p ? astra_json_get_str(p, "format") : NULL;
	if (p && (!fmt || strcmp(fmt, PLAN_FORMAT) || !astra_json_is_array(astra_json_get(p, "items")) ||
		  !astra_json_get_str(p, "id"))) {
		fprintf(stderr, "%s: %s: not a warmup plan (%s)\n", astra_progname, plan, PLAN_FORMAT);
		astra_json_free(p);
		p = NULL;
	}
	return p;
}

/*
 * The result of item it, if it is this plan's and its task finished:
 * the result document (free it), else NULL.
 */
static struct astra_json *read_result(const char *plan, const struct astra_json *p, const struct astra_json *it,
				      long n)
{
	char *path = plan_path(plan, "results", n, "json");
	struct astra_json *r = read_json(path, 1);
	const char *id = astra_json_get_str(r, "plan"), *key = astra_json_get_str(r, "key");
	free(path);
	if (!r || !id || !key || strcmp(id, astra_json_get_str(p, "id")) ||
	    strcmp(key, astra_json_get_str(it, "key")) || !astra_json_len(astra_json_get(r, "kernels"))) {
		astra_json_free(r);
		return NULL;
	}
	return r;
}

static const char *result_status(const struct astra_json *r)
{
	return astra_json_get_str(astra_json_at(astra_json_get(r, "kernels"), 0), "status");
}

/* Is a result final for a task that has (gpu) or has not a GPU? */
static int done(const char *status, int gpu)
{
	static const char *const verdicts[] = { "optimized", "no-faster-variant", "failed", "cached" };
	size_t i;
	if (!status)
		return 0;
	for (i = 0; i < ARRAY_SIZE(verdicts); i++)
		if (!strcmp(status, verdicts[i]))
			return 1;
	/* Without a GPU nothing more can be done; with one, a no-GPU result is redone. */
	return !gpu && !strcmp(status, "not-run");
}

/* A row for a kernel the cache has (from any machine). */
static struct astra_json *cached_row(const struct astra_json *it, const struct astra_entry *e)
{
	struct astra_json *row = astra_json_new_object();
	astra_json_set_str(row, "file", astra_json_get_str(it, "file"));
	astra_json_set_str(row, "kernel", astra_json_get_str(it, "kernel"));
	astra_json_set_num(row, "line", astra_json_get_num(it, "line", 0));
	if (astra_json_get_str(it, "types"))
		astra_json_set_str(row, "types", astra_json_get_str(it, "types"));
	astra_json_set_str(row, "status", "cached");
	astra_json_set_str(row, "verdict", astra_verdict_name(e->verdict));
	astra_json_set_num(row, "speedup", e->speedup);
	if (e->origin)
		astra_json_set_str(row, "rules", e->origin);
	if (e->reason)
		astra_json_set_str(row, "reason", e->reason);
	if (e->nr_timings) {
		astra_json_set_num(row, "baseline_us", e->timings[0].baseline_us);
		astra_json_set_num(row, "best_us", e->timings[0].variant_us);
	}
	if (e->device)
		astra_json_set_str(row, "device", e->device);
	return row;
}

/* ------------------------------------------------------------ --item */

static int write_result(const char *plan, const struct astra_json *p, const struct astra_json *it, long n,
			struct astra_json *doc)
{
	char *path = plan_path(plan, "results", n, "json"), *text, host[256] = "";
	int r;
	gethostname(host, sizeof(host) - 1);
	astra_json_set_str(doc, "plan", astra_json_get_str(p, "id"));
	astra_json_set_num(doc, "item", (double)n);
	astra_json_set_str(doc, "key", astra_json_get_str(it, "key"));
	astra_json_set_str(doc, "host", host);
	text = astra_json_print(doc, 1);
	r = write_atomic(path, text);
	if (r < 0)
		fprintf(stderr, "%s: cannot write %s: %s\n", astra_progname, path, strerror(errno));
	free(text);
	free(path);
	return r;
}

int astra_plan_item(struct astra_warmup_request *rq, const char *plan_arg, long n)
{
	char *plan = abs_path(plan_arg);
	struct astra_json *p = read_plan(plan), *it, *prev, *doc;
	struct astra_warmup_item item;
	struct astra_gpu g;
	struct astra_cache *c;
	struct astra_entry e;
	const char *key;
	char *tmp = NULL;
	int cc, gpu, ret = 1;
	size_t a;

	if (!p)
		goto out;
	it = astra_json_at(astra_json_get(p, "items"), (size_t)n);
	if (n < 0 || !it) {
		fprintf(stderr, "%s: %s has %zu item%s; there is no item %ld\n", astra_progname, plan,
			astra_json_len(astra_json_get(p, "items")),
			astra_json_len(astra_json_get(p, "items")) == 1 ? "" : "s", n);
		ret = 2;
		goto out;
	}
	key = astra_json_get_str(it, "key");
	cc = (int)astra_json_get_num(it, "cc", 0);
	if (!key || cc <= 0 || !astra_json_get_str(it, "cwd") || !astra_json_len(astra_json_get(it, "argv"))) {
		fprintf(stderr, "%s: %s: item %ld is incomplete\n", astra_progname, plan, n);
		ret = 2;
		goto out;
	}

	/* Idempotent: done before (this plan's result), or in the cache. */
	gpu = astra_gpu_probe(rq->nvcc, &g);
	prev = read_result(plan, p, it, n);
	if (prev && done(result_status(prev), gpu)) {
		printf("item %ld (%s): done already: %s\n", n, astra_json_get_str(it, "kernel"), result_status(prev));
		astra_json_free(prev);
		ret = 0;
		goto out;
	}
	astra_json_free(prev);
	c = astra_cache_open(NULL);
	if (astra_cache_lookup(c, key, cc, &e) == 1) {
		struct astra_json *rows;
		doc = astra_json_new_object();
		rows = astra_json_set_array(doc, "kernels");
		astra_json_push(rows, cached_row(it, &e));
		printf("item %ld (%s): in the cache already: %s\n", n, astra_json_get_str(it, "kernel"),
		       astra_verdict_name(e.verdict));
		ret = write_result(plan, p, it, n, doc) < 0;
		astra_json_free(doc);
		astra_entry_release(&e);
		astra_cache_close(c);
		astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));
		goto out;
	}
	astra_cache_close(c);
	astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));

	/* Run it: warmup's worker on this one kernel. */
	astra_warmup_item_init(&item);
	item.key = xstrdup(key);
	item.cc = cc;
	item.kernel = xstrdup(astra_json_get_str(it, "kernel") ? astra_json_get_str(it, "kernel") : "");
	item.source = xstrdup(astra_json_get_str(it, "file") ? astra_json_get_str(it, "file") : "");
	item.cwd = xstrdup(astra_json_get_str(it, "cwd"));
	for (a = 0; a < astra_json_len(astra_json_get(it, "argv")); a++) {
		const char *s = astra_json_str(astra_json_at(astra_json_get(it, "argv"), a));
		astra_vec_push(&item.argv, s ? s : "");
	}
	tmp = plan_path(plan, "results", n, "run.json");
	rq->items = &item;
	rq->nr_items = 1;
	rq->cc = cc;
	rq->jobs = 1;
	rq->json_out = tmp;
	ret = astra_warmup_run(rq);
	doc = read_json(tmp, 0);
	unlink(tmp);
	if (doc && astra_json_len(astra_json_get(doc, "kernels"))) {
		if (write_result(plan, p, it, n, doc) < 0)
			ret = 1;
	} else if (!ret) {
		fprintf(stderr, "%s: item %ld: warmup gave no result\n", astra_progname, n);
		ret = 1;
	}
	astra_json_free(doc);
	astra_warmup_item_release(&item);
out:
	free(tmp);
	free(plan);
	astra_json_free(p);
	return ret;
}

/* ------------------------------------------------------------ --report */

int astra_plan_report(const char *plan_arg, const char *json_out)
{
	char *plan = abs_path(plan_arg);
	struct astra_json *p = read_plan(plan), *items, *rows_doc = NULL, *arr;
	struct astra_json **rows = NULL;
	struct astra_cache *c = NULL;
	size_t nrows = 0, arows = 0, i;
	long pending = 0, from_cache = 0, finished = 0, not_run = 0;
	int ret = 0;

	if (!p) {
		free(plan);
		return 2;
	}
	items = astra_json_get(p, "items");
	c = astra_cache_open(NULL);
	for (i = 0; i < astra_json_len(items); i++) {
		struct astra_json *it = astra_json_at(items, i), *r = read_result(plan, p, it, (long)i), *row;
		struct astra_entry e;
		if (r) {
			row = astra_json_dup(astra_json_at(astra_json_get(r, "kernels"), 0));
			astra_json_free(r);
			finished++;
		} else if (astra_cache_lookup(c, astra_json_get_str(it, "key"), (int)astra_json_get_num(it, "cc", 0),
					      &e) == 1) {
			row = cached_row(it, &e);
			astra_entry_release(&e);
			from_cache++;
		} else {
			char *why = xasprintf("no result yet (item %zu; its log: %s.d/logs/item-%zu.out)", i, plan, i);
			row = astra_json_new_object();
			astra_json_set_str(row, "file", astra_json_get_str(it, "file"));
			astra_json_set_str(row, "kernel", astra_json_get_str(it, "kernel"));
			astra_json_set_str(row, "status", "pending");
			astra_json_set_str(row, "reason", why);
			free(why);
			pending++;
		}
		astra_json_set_num(row, "item", (double)i);
		if (!strcmp(astra_json_get_str(row, "status") ? astra_json_get_str(row, "status") : "", "not-run"))
			not_run++;
		ALLOC_GROW(rows, nrows + 1, arows);
		rows[nrows++] = row;
	}
	astra_cache_close(c);
	astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));
	/* The kernels that were cached (or failed to parse) when the plan was made. */
	for (i = 0; i < astra_json_len(astra_json_get(p, "not_planned")); i++) {
		ALLOC_GROW(rows, nrows + 1, arows);
		rows[nrows++] = astra_json_dup(astra_json_at(astra_json_get(p, "not_planned"), i));
	}
	/* A report's ending, not warmup's "run the same command on a machine with a GPU". */
	astra_warmup_print_table(rows, nrows, 1);
	printf("\n%s: %zu item%s: %ld with a result, %ld found in the cache, %ld pending\n", plan,
	       astra_json_len(items), astra_json_len(items) == 1 ? "" : "s", finished, from_cache, pending);
	if (not_run)
		printf("%ld item%s ran on a node without a GPU: %s candidates were generated and compiled, but\n"
		       "nothing was verified, timed or stored.  Submit the job script to a partition whose\n"
		       "nodes have GPUs (those items run again), then run this report again:\n"
		       "  sbatch --partition=GPU_PARTITION --gres=gpu:1 %s.sbatch\n",
		       not_run, not_run == 1 ? "" : "s", not_run == 1 ? "its" : "their", plan);
	if (pending)
		printf("%ld item%s pending: run this report again when the job array is done.\n", pending,
		       pending == 1 ? " is" : "s are");
	if (json_out) {
		char *text;
		rows_doc = astra_json_new_object();
		astra_json_set_str(rows_doc, "plan", plan);
		astra_json_set_num(rows_doc, "items", (double)astra_json_len(items));
		astra_json_set_num(rows_doc, "pending", (double)pending);
		arr = astra_json_set_array(rows_doc, "kernels");
		for (i = 0; i < nrows; i++) {
			astra_json_push(arr, rows[i]);
			rows[i] = NULL;
		}
		text = astra_json_print(rows_doc, 1);
		if (write_atomic(json_out, text) < 0) {
			fprintf(stderr, "%s: cannot write %s: %s\n", astra_progname, json_out, strerror(errno));
			ret = 2;
		}
		free(text);
		astra_json_free(rows_doc);
	}
	for (i = 0; i < nrows; i++)
		astra_json_free(rows[i]);
	free(rows);
	free(plan);
	astra_json_free(p);
	return ret ? ret : pending ? 1 : 0;
}
