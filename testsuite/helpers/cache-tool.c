/*
 * cache-tool.c - drives the cache API from the command line, for the test
 * cases in testsuite/cases/cache/ and for bench/cache-lookup.sh.
 *
 * It plays the parts of the real callers: `get` is the compile pipeline's
 * lookup, `optimize` is the optimization loop (lock, look up again,
 * "optimize" by sleeping, store, unlock), `put` stores an entry.  Variants
 * it writes are self-describing (every line says which writer wrote it and
 * its number), so `get --check` can tell a whole entry from a mixture
 * without trusting the checksums it is testing.
 *
 * Usage: cache-tool COMMAND DIR [ARGS]; see usage() below.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/log.h"
#include "cache/cleanup.h"
#include "verify/device.h"
#include "cache/lock.h"
#include "cache/manifest.h"
#include "cache/queue.h"
#include "cache/stats.h"
#include "cache/store.h"
#include "evidence-fixture.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: cache-tool put DIR KEY CC [--verdict V] [--variant-size N] [--tag T] [--kernel K]\n"
		"                         [--speedup X] [--device D] [--transcript FILE] [--created T]\n"
		"                         [--evidence [--original-file F] [--variant-file F] [--origin O]\n"
		"                          [--grid G --block B] [--shape-prefix S] [--input TEXT]]\n"
		"                         [--file F] [--line N] [--reason R] [--model M] [--no-timings]\n"
		"       cache-tool get DIR KEY CC [--check] [--show-tag]\n"
		"       cache-tool optimize DIR KEY CC [--sleep S] [--wait W] [--record FILE] [--tag T]\n"
		"       cache-tool lock DIR KEY CC [--hold S] [--wait W]\n"
		"       cache-tool held DIR KEY CC\n"
		"       cache-tool path DIR KEY CC\n"
		"       cache-tool flip FILE OFFSET BIT\n"
		"       cache-tool queue-add DIR KEY CC KERNEL SOURCE ARG...\n"
		"       cache-tool queue-list DIR\n"
		"       cache-tool queue-remove DIR KEY CC\n"
		"       cache-tool device-put DIR NAME CC COPY_GBPS FMA_GFLOPS\n"
		"       cache-tool device-get DIR NAME CC\n"
		"       cache-tool usage DIR\n"
		"       cache-tool stats-bump DIR\n"
		"       cache-tool bench DIR ENTRIES ITERATIONS\n");
	exit(2);
}

static const char *opt(int argc, char **argv, const char *name, const char *def)
{
	int i;
	for (i = 0; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return argv[i + 1];
	return def;
}

static int flag(int argc, char **argv, const char *name)
{
	int i;
	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

/* The variant text: a header line, then numbered lines naming the writer. */
static void make_variant(struct astra_buf *b, const char *key, const char *tag, size_t size)
{
	size_t lines = size / 64 + 1, i;
	astra_buf_addf(b, "// variant key=%s tag=%s lines=%zu\n", key, tag, lines);
	astra_buf_addf(b, "__global__ void k(float *x) {\n");
	for (i = 0; i < lines; i++)
		astra_buf_addf(b, "\tx[%zu] = %zu.0f; // %s %s\n", i, i, tag, key);
	astra_buf_addf(b, "}\n");
}

/* Is text exactly what make_variant wrote for key and some tag? */
static int check_variant(const char *text, size_t len, const char *key)
{
	char tag[256];
	size_t lines;
	struct astra_buf want = ASTRA_BUF_INIT;
	int ok;
	if (sscanf(text, "// variant key=%*s tag=%255s lines=%zu", tag, &lines) != 2)
		return 0;
	make_variant(&want, key, tag, (lines - 1) * 64);
	ok = want.len == len && !memcmp(want.buf, text, len);
	astra_buf_release(&want);
	return ok;
}

static char *read_opt_file(int argc, char **argv, const char *name)
{
	const char *path = opt(argc, argv, name, NULL);
	struct astra_buf b = ASTRA_BUF_INIT;
	if (!path)
		return NULL;
	if (astra_buf_read_file(&b, path, 0) < 0) {
		perror(path);
		exit(2);
	}
	return astra_buf_detach(&b, NULL);
}

/*
 * --evidence: the entry as warmup stores it after a run (per-shape timings,
 * the evidence record, the original's text), from evidence-fixture.c.
 */
static void fill_evidence(struct astra_entry *e, int argc, char **argv)
{
	struct fixture f;
	char *orig = read_opt_file(argc, argv, "--original-file");
	char *var = read_opt_file(argc, argv, "--variant-file");
	memset(&f, 0, sizeof(f));
	f.verdict = e->verdict;
	f.speedup = atof(opt(argc, argv, "--speedup", "2.5"));
	f.original = orig;
	f.variant = var;
	f.origin = opt(argc, argv, "--origin", "rules: warp-reduce,block-size=512,row-cache,fastmath,launch-bounds");
	f.grid = opt(argc, argv, "--grid", NULL);
	f.block = opt(argc, argv, "--block", NULL);
	f.shape_prefix = opt(argc, argv, "--shape-prefix", NULL);
	fixture_fill(e, &f);
	free(orig);
	free(var);
}

static void fill_entry(struct astra_entry *e, int argc, char **argv, const char *key, int cc)
{
	const char *verdict = opt(argc, argv, "--verdict", "faster");
	const char *tag = opt(argc, argv, "--tag", "t0");
	size_t size = (size_t)atol(opt(argc, argv, "--variant-size", "200"));

	e->key = xstrdup(key);
	e->cc = cc;
	e->verdict = astra_verdict_parse(verdict);
	e->kernel = xstrdup(opt(argc, argv, "--kernel", "test_kernel"));
	e->file = xstrdup(opt(argc, argv, "--file", "k.cu"));
	e->line = (unsigned)atoi(opt(argc, argv, "--line", "12"));
	astra_entry_add_input(e, "tokens", "xxh3:0123456789abcdef");
	astra_entry_add_input(e, "device_flags", "-arch=sm_90 -O3");
	astra_entry_add_input(e, "nvcc", "13.0.48");
	if (flag(argc, argv, "--evidence")) {
		fill_evidence(e, argc, argv);
		if (opt(argc, argv, "--reason", NULL)) {
			free(e->reason);
			e->reason = xstrdup(opt(argc, argv, "--reason", NULL));
		}
		if (opt(argc, argv, "--model", NULL))
			e->model = xstrdup(opt(argc, argv, "--model", NULL));
		if (opt(argc, argv, "--input", NULL))
			astra_entry_add_input(e, "flags", opt(argc, argv, "--input", NULL));
		free(e->device);
		e->device = xstrdup(opt(argc, argv, "--device", "NVIDIA H100 80GB HBM3"));
		free(e->driver);
		e->driver = xstrdup("580.65.06");
		e->nvcc_version = xstrdup("13.0.88");
		e->created = atoll(opt(argc, argv, "--created", "0"));
		return;
	}
	if (e->verdict == ASTRA_VERDICT_FASTER) {
		struct astra_buf v = ASTRA_BUF_INIT;
		make_variant(&v, key, tag, size);
		astra_entry_set_variant(e, v.buf, v.len);
		astra_buf_release(&v);
		e->origin = xstrdup("rules: vectorize");
		e->speedup = atof(opt(argc, argv, "--speedup", "1.5"));
		if (!flag(argc, argv, "--no-timings"))
			astra_entry_add_timing(e, "rows=4096 cols=4096", 12.5, 0.01, 8.25, 0.012);
	} else if (e->verdict == ASTRA_VERDICT_FAILED) {
		e->reason = xstrdup("the test program did not compile");
	} else {
		e->reason = xstrdup(opt(argc, argv, "--reason", "no candidate beat the original beyond the noise"));
	}
	astra_entry_add_shape(e, "rows=4096 cols=4096");
	astra_entry_add_shape(e, "rows=7 cols=5120");
	astra_entry_add_seed(e, 1);
	astra_entry_add_seed(e, 2);
	e->device = xstrdup(opt(argc, argv, "--device", "NVIDIA H100 80GB HBM3"));
	e->driver = xstrdup("580.65.06");
	e->nvcc_version = xstrdup("13.0.48");
	e->optimizer = xstrdup("rules");
	if (opt(argc, argv, "--model", NULL))
		e->model = xstrdup(opt(argc, argv, "--model", NULL));
	e->seconds = 42.5;
	e->created = atoll(opt(argc, argv, "--created", "0"));
}

static int cmd_put(struct astra_cache *c, int argc, char **argv)
{
	struct astra_entry e;
	struct astra_buf t = ASTRA_BUF_INIT;
	const char *tfile = opt(argc, argv, "--transcript", NULL);
	int ret;
	astra_entry_init(&e);
	fill_entry(&e, argc, argv, argv[3], atoi(argv[4]));
	if (tfile && astra_buf_read_file(&t, tfile, 0) < 0) {
		perror(tfile);
		return 1;
	}
	ret = astra_cache_store(c, &e, tfile ? t.buf : NULL, t.len);
	printf("%s\n", ret == 0 ? "stored" : "not stored");
	astra_entry_release(&e);
	astra_buf_release(&t);
	return ret == 0 ? 0 : 1;
}

static int cmd_get(struct astra_cache *c, int argc, char **argv)
{
	struct astra_entry e;
	const char *key = argv[3];
	int hit = astra_cache_lookup(c, key, atoi(argv[4]), &e);
	if (!hit) {
		printf("miss\n");
		return 0;
	}
	if (flag(argc, argv, "--check") && e.verdict == ASTRA_VERDICT_FASTER &&
	    !check_variant(e.variant, e.variant_len, key)) {
		printf("BAD: the variant is not one whole writer's\n");
		astra_entry_release(&e);
		return 3;
	}
	printf("hit %s %s %zu", astra_verdict_name(e.verdict), e.kernel, e.variant_len);
	if (flag(argc, argv, "--show-tag") && e.variant) {
		char tag[64] = "?";
		sscanf(e.variant, "// variant key=%*s tag=%63s", tag);
		printf(" tag=%s", tag);
	}
	printf("\n");
	astra_entry_release(&e);
	return 0;
}

static void record(const char *file, const char *line)
{
	int fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0666);
	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		perror(file);
	if (fd >= 0)
		close(fd);
}

static int cmd_optimize(struct astra_cache *c, int argc, char **argv)
{
	const char *key = argv[3];
	int cc = atoi(argv[4]);
	double pause = atof(opt(argc, argv, "--sleep", "0.2"));
	double wait = atof(opt(argc, argv, "--wait", "30"));
	const char *rec = opt(argc, argv, "--record", NULL);
	struct astra_cache_lock lk = ASTRA_CACHE_LOCK_INIT;
	struct astra_entry e;
	int r;

	if (astra_cache_lookup(c, key, cc, &e)) {
		printf("hit\n");
		astra_entry_release(&e);
		return 0;
	}
	r = astra_cache_lock(c, key, cc, wait, &lk);
	if (r == 0) {
		printf("original (lock wait timed out)\n");
		return 0;
	}
	if (r < 0) {
		printf("original (cannot lock)\n");
		return 0;
	}
	if (astra_cache_lookup(c, key, cc, &e)) {
		printf("hit after waiting\n");
		astra_entry_release(&e);
		astra_cache_unlock(&lk);
		return 0;
	}
	if (rec) {
		char *line = xasprintf("optimized %s %d by %ld\n", key, cc, (long)getpid());
		record(rec, line);
		free(line);
	}
	usleep((useconds_t)(pause * 1e6));
	fill_entry(&e, argc, argv, key, cc);
	r = astra_cache_store(c, &e, NULL, 0);
	astra_entry_release(&e);
	astra_cache_unlock(&lk);
	printf("%s\n", r == 0 ? "optimized" : "optimized, not stored");
	return 0;
}

static int cmd_lock(struct astra_cache *c, int argc, char **argv)
{
	struct astra_cache_lock lk = ASTRA_CACHE_LOCK_INIT;
	double hold = atof(opt(argc, argv, "--hold", "0"));
	double start = astra_now();
	int r = astra_cache_lock(c, argv[3], atoi(argv[4]), atof(opt(argc, argv, "--wait", "0")), &lk);
	printf("%s %.2f\n", r > 0 ? "locked" : r == 0 ? "busy" : "error", astra_now() - start);
	fflush(stdout);
	if (r > 0) {
		usleep((useconds_t)(hold * 1e6));
		astra_cache_unlock(&lk);
	}
	return r > 0 ? 0 : 1;
}

static int cmd_flip(int argc, char **argv)
{
	long off = atol(argv[3]);
	int bit = atoi(argv[4]), fd;
	unsigned char ch;
	(void)argc;
	fd = open(argv[2], O_RDWR);
	if (fd < 0 || pread(fd, &ch, 1, off) != 1) {
		perror(argv[2]);
		return 1;
	}
	ch ^= (unsigned char)(1u << bit);
	if (pwrite(fd, &ch, 1, off) != 1) {
		perror(argv[2]);
		return 1;
	}
	close(fd);
	return 0;
}

static int cmd_queue_add(struct astra_cache *c, int argc, char **argv)
{
	struct astra_warmup_item it;
	int i, r;
	if (argc < 7)
		usage();
	astra_warmup_item_init(&it);
	it.key = xstrdup(argv[3]);
	it.cc = atoi(argv[4]);
	it.kernel = xstrdup(argv[5]);
	it.source = xstrdup(argv[6]);
	it.cwd = xstrdup("/src");
	for (i = 7; i < argc; i++)
		astra_vec_push(&it.argv, argv[i]);
	r = astra_cache_queue_add(c, &it);
	astra_warmup_item_release(&it);
	return r < 0;
}

static int cmd_queue_list(struct astra_cache *c)
{
	struct astra_warmup_item *items;
	size_t nr, i, k;
	if (astra_cache_queue_list(c, &items, &nr) < 0)
		return 1;
	for (i = 0; i < nr; i++) {
		printf("%s sm_%d %s %s %s:", items[i].key, items[i].cc, items[i].kernel, items[i].source,
		       items[i].cwd);
		for (k = 0; k < items[i].argv.nr; k++)
			printf(" %s", items[i].argv.v[k]);
		printf("\n");
	}
	astra_warmup_items_free(items, nr);
	return 0;
}

static int cmd_device(struct astra_cache *c, int argc, char **argv, int put)
{
	struct astra_device_ceilings d;
	int r;
	memset(&d, 0, sizeof(d));
	if (put) {
		if (argc < 7)
			usage();
		d.device = xstrdup(argv[3]);
		d.cc = atoi(argv[4]);
		d.copy_gbps = atof(argv[5]);
		d.fma_gflops = atof(argv[6]);
		r = astra_cache_device_put(c, &d);
		astra_device_ceilings_release(&d);
		return r < 0;
	}
	r = astra_cache_device_get(c, argv[3], atoi(argv[4]), &d);
	if (r > 0)
		printf("%s sm_%d copy %.1f GB/s fma %.1f GFLOP/s\n", d.device, d.cc, d.copy_gbps, d.fma_gflops);
	else
		printf("%s\n", r == 0 ? "unknown" : "error");
	astra_device_ceilings_release(&d);
	return 0;
}

static unsigned long long splitmix(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void bench_key(char *key, unsigned long long i)
{
	snprintf(key, 33, "%016llx%016llx", splitmix(i), splitmix(i ^ 0xabcdefULL));
}

static int cmd_bench(struct astra_cache *c, int argc, char **argv)
{
	long n = atol(argv[3]), iters = atol(argv[4]), i;
	long long bytes, entries;
	char key[33];
	double t0, t_hit, t_miss, t_fill = 0;
	struct astra_entry e;
	size_t entry_size = 0;
	struct astra_storage_stat st;
	const char *why;

	(void)argc;
	astra_cache_usage(astra_cache_local(c), &bytes, &entries);
	if (entries < n) {
		char *fake[] = { "x", "--variant-size", "1500", NULL };
		t0 = astra_now();
		for (i = 0; i < n; i++) {
			astra_entry_init(&e);
			bench_key(key, (unsigned long long)i);
			fill_entry(&e, 3, fake, key, 90);
			astra_cache_store(c, &e, NULL, 0);
			astra_entry_release(&e);
		}
		t_fill = astra_now() - t0;
		astra_cache_usage(astra_cache_local(c), &bytes, &entries);
	}
	bench_key(key, 0);
	if (astra_cache_peek(c, key, 90, &e, NULL, &st, &why) > 0)
		entry_size = (size_t)st.size;
	astra_entry_release(&e);

	t0 = astra_now();
	for (i = 0; i < iters; i++) {
		bench_key(key, (unsigned long long)(splitmix((unsigned long long)i) % (unsigned long long)n));
		if (!astra_cache_lookup(c, key, 90, &e)) {
			fprintf(stderr, "unexpected miss\n");
			return 1;
		}
		astra_entry_release(&e);
	}
	t_hit = (astra_now() - t0) / (double)iters;
	t0 = astra_now();
	for (i = 0; i < iters; i++) {
		bench_key(key, (unsigned long long)(n + i));
		if (astra_cache_lookup(c, key, 90, &e)) {
			fprintf(stderr, "unexpected hit\n");
			return 1;
		}
		astra_entry_release(&e);
	}
	t_miss = (astra_now() - t0) / (double)iters;
	printf("{\"entries\": %lld, \"cache_bytes\": %lld, \"entry_bytes\": %zu, \"iterations\": %ld, "
	       "\"hit_us\": %.2f, \"miss_us\": %.2f, \"fill_s\": %.2f}\n",
	       entries, bytes, entry_size, iters, t_hit * 1e6, t_miss * 1e6, t_fill);
	return 0;
}

int main(int argc, char **argv)
{
	struct astra_cache *c;
	const char *cmd;
	int ret;

	if (argc < 3)
		usage();
	cmd = argv[1];
	if (!strcmp(cmd, "flip"))
		return argc == 5 ? cmd_flip(argc, argv) : (usage(), 2);
	astra_config_load();
	astra_log_open(astra_config_str(ASTRA_CFG_LOG_FILE), astra_config_str(ASTRA_CFG_TRACE));
	c = astra_cache_open(argv[2]);
	if (!strcmp(cmd, "queue-list")) {
		ret = cmd_queue_list(c);
	} else if (!strcmp(cmd, "stats-bump")) {
		/* One miss, flushed at exit as a compile does (cache/0030: counters under contention). */
		astra_stats_inc(ASTRA_STAT_MISSES);
		ret = 0;
	} else if (!strcmp(cmd, "usage")) {
		long long bytes, entries;
		ret = astra_cache_usage(astra_cache_local(c), &bytes, &entries) < 0;
		printf("%lld entries, %lld bytes\n", entries, bytes);
	} else {
		if (argc < 5)
			usage();
		if (!strcmp(cmd, "put"))
			ret = cmd_put(c, argc, argv);
		else if (!strcmp(cmd, "get"))
			ret = cmd_get(c, argc, argv);
		else if (!strcmp(cmd, "optimize"))
			ret = cmd_optimize(c, argc, argv);
		else if (!strcmp(cmd, "lock"))
			ret = cmd_lock(c, argc, argv);
		else if (!strcmp(cmd, "held"))
			ret = printf("%d\n", astra_cache_lock_held(c, argv[3], atoi(argv[4]))) < 0;
		else if (!strcmp(cmd, "path")) {
			char *name = astra_cache_entry_name(argv[3], atoi(argv[4]));
			char *path = astra_cache_local(c)->ops->where(astra_cache_local(c), name);
			printf("%s\n", path);
			free(name);
			free(path);
			ret = 0;
		} else if (!strcmp(cmd, "queue-add"))
			ret = cmd_queue_add(c, argc, argv);
		else if (!strcmp(cmd, "queue-remove"))
			ret = astra_cache_queue_remove(c, argv[3], atoi(argv[4])) < 0;
		else if (!strcmp(cmd, "device-put"))
			ret = cmd_device(c, argc, argv, 1);
		else if (!strcmp(cmd, "device-get"))
			ret = cmd_device(c, argc, argv, 0);
		else if (!strcmp(cmd, "bench"))
			ret = cmd_bench(c, argc, argv);
		else
			usage();
	}
	astra_stats_flush(argv[2]);
	astra_cache_close(c);
	return ret;
}
