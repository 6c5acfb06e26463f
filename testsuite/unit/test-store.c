/*
 * Unit tests for the cache store (store.c, storage-file.c, lock.c,
 * cleanup.c, queue.c, device.c, fsio.c) in one process, in a scratch
 * directory.  The multi-process behaviour (kill -9, 32 concurrent
 * processes) is tested by the cases in testsuite/cases/cache/.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "cache/cleanup.h"
#include "verify/device.h"
#include "cache/fsio.h"
#include "cache/lock.h"
#include "cache/queue.h"
#include "cache/stats.h"
#include "cache/store.h"
#include "testsuite/unit/unit.h"

static char dir[256];

static void key_of(char *key, int i)
{
	snprintf(key, 33, "%02x%030x", i & 0xff, i);
}

static void make(struct astra_entry *e, const char *key, int cc, enum astra_verdict v, size_t vlen)
{
	astra_entry_init(e);
	e->key = xstrdup(key);
	e->cc = cc;
	e->verdict = v;
	e->kernel = xstrdup("k");
	if (v == ASTRA_VERDICT_FASTER) {
		char *text = xmalloc(vlen + 1);
		memset(text, 'v', vlen);
		text[vlen] = '\0';
		astra_entry_set_variant(e, text, vlen);
		free(text);
		e->speedup = 1.25;
	}
}

static int store(struct astra_cache *c, const char *key, int cc, enum astra_verdict v, size_t vlen)
{
	struct astra_entry e;
	int r;
	make(&e, key, cc, v, vlen);
	r = astra_cache_store(c, &e, NULL, 0);
	astra_entry_release(&e);
	return r;
}

static int lookup(struct astra_cache *c, const char *key, int cc)
{
	struct astra_entry e;
	int r = astra_cache_lookup(c, key, cc, &e);
	int v = r ? (int)e.verdict : 0;
	astra_entry_release(&e);
	return v;
}

static char *entry_path(const char *key, int cc)
{
	char *name = astra_cache_entry_name(key, cc);
	struct astra_storage *s = astra_storage_file_open(dir);
	char *path = s->ops->where(s, name);
	s->ops->close(s);
	free(name);
	return path;
}

static void set_mtime(const char *path, long long t)
{
	struct timespec ts[2] = { { (time_t)t, 0 }, { (time_t)t, 0 } };
	CHECK_INT(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static long long stat_of(enum astra_stat s)
{
	long long v[ASTRA_STAT__COUNT];
	astra_stats_flush(dir);
	astra_stats_read(dir, v);
	return v[s];
}

static void test_basics(void)
{
	struct astra_cache *c = astra_cache_open(dir);
	struct astra_entry e;
	struct astra_buf b = ASTRA_BUF_INIT;
	char key[33], *path;

	key_of(key, 1);
	/* A missing directory is an empty cache, and a lookup creates nothing. */
	CHECK_INT(lookup(c, key, 90), 0);
	CHECK(!exists(dir));
	CHECK_INT(stat_of(ASTRA_STAT_MISSES), 1);

	CHECK_INT(store(c, key, 90, ASTRA_VERDICT_FASTER, 100), 0);
	CHECK_INT(lookup(c, key, 90), ASTRA_VERDICT_FASTER);
	CHECK_INT(lookup(c, key, 80), 0); /* per architecture */
	CHECK_INT(astra_cache_lookup(c, key, 90, &e), 1);
	CHECK_INT(e.variant_len, 100);
	CHECK(e.created > 0);
	astra_entry_release(&e);
	CHECK_INT(stat_of(ASTRA_STAT_HITS), 2);
	CHECK_INT(stat_of(ASTRA_STAT_HITS_FASTER), 2);
	CHECK_INT(stat_of(ASTRA_STAT_MISSES), 2);
	CHECK_INT(stat_of(ASTRA_STAT_VERDICT_FASTER), 1);

	/* Replacing an entry with a negative verdict. */
	CHECK_INT(store(c, key, 90, ASTRA_VERDICT_NO_FASTER, 0), 0);
	CHECK_INT(lookup(c, key, 90), ASTRA_VERDICT_NO_FASTER);
	CHECK_INT(stat_of(ASTRA_STAT_HITS_NONE), 1);

	/* A transcript, checked against the manifest. */
	make(&e, key, 90, ASTRA_VERDICT_FAILED, 0);
	CHECK_INT(astra_cache_store(c, &e, "[{\"role\": \"user\"}]", 19), 0);
	astra_entry_release(&e);
	CHECK_INT(astra_cache_transcript(c, key, 90, &b), 1);
	CHECK_STR(b.buf, "[{\"role\": \"user\"}]");
	{
		char *tname = astra_cache_transcript_name(key, 90);
		char *tpath = astra_cache_local(c)->ops->where(astra_cache_local(c), tname);
		FILE *f = fopen(tpath, "w");
		fputs("[{\"role\": \"evil\"}]", f);
		fclose(f);
		astra_buf_reset(&b);
		CHECK_INT(astra_cache_transcript(c, key, 90, &b), -1);
		/* Storing without a transcript removes the old one. */
		CHECK_INT(store(c, key, 90, ASTRA_VERDICT_FAILED, 0), 0);
		CHECK(!exists(tpath));
		CHECK_INT(astra_cache_transcript(c, key, 90, &b), 0);
		free(tname);
		free(tpath);
	}

	/* A truncated entry: a miss, counted, removed; then replaced. */
	path = entry_path(key, 90);
	CHECK_INT(truncate(path, 50), 0);
	CHECK_INT(lookup(c, key, 90), 0);
	CHECK_INT(stat_of(ASTRA_STAT_CORRUPT_ENTRIES), 1);
	CHECK(!exists(path));
	CHECK_INT(store(c, key, 90, ASTRA_VERDICT_FASTER, 10), 0);
	CHECK_INT(lookup(c, key, 90), ASTRA_VERDICT_FASTER);

	/* Another format version: a miss, counted, left for its writer. */
	{
		int fd = open(path, O_WRONLY);
		CHECK(fd >= 0 && pwrite(fd, "7", 1, strlen(ASTRA_ENTRY_MAGIC)) == 1);
		close(fd);
	}
	CHECK_INT(lookup(c, key, 90), 0);
	CHECK_INT(stat_of(ASTRA_STAT_UNKNOWN_FORMAT), 1);
	CHECK(exists(path));
	CHECK_INT(astra_cache_remove(c, key, 90), 0);
	CHECK(!exists(path));

	/* Invalid keys are misses, never crashes. */
	CHECK_INT(lookup(c, "../../etc/passwd", 90), 0);
	CHECK_INT(lookup(c, NULL, 90), 0);
	free(path);
	astra_buf_release(&b);
	astra_cache_close(c);
}

static void test_faults(void)
{
	struct astra_cache *c = astra_cache_open(dir);
	char key[33], *path;
	long long full = stat_of(ASTRA_STAT_CACHE_FULL), ro = stat_of(ASTRA_STAT_CACHE_UNWRITABLE);

	key_of(key, 2);
	path = entry_path(key, 90);
	/*
	 * The statistics file is written through the same (faulty) tier: the
	 * counts stay pending until a flush succeeds, so they are read with
	 * the fault lifted.
	 */
	setenv("ASTRA_CC_FAULT", "enospc:100", 1);
	astra_fsio_reset_faults();
	CHECK_INT(store(c, key, 90, ASTRA_VERDICT_FASTER, 1000), -1);
	unsetenv("ASTRA_CC_FAULT");
	astra_fsio_reset_faults();
	CHECK_INT(stat_of(ASTRA_STAT_CACHE_FULL), full + 1);
	CHECK(!exists(path));
	setenv("ASTRA_CC_FAULT", "erofs", 1);
	astra_fsio_reset_faults();
	CHECK_INT(store(c, key, 90, ASTRA_VERDICT_FASTER, 1000), -1);
	unsetenv("ASTRA_CC_FAULT");
	astra_fsio_reset_faults();
	CHECK_INT(stat_of(ASTRA_STAT_CACHE_UNWRITABLE), ro + 1);
	/* No temporary file was left behind. */
	{
		long long bytes, entries, swept = 0;
		struct astra_storage *s = astra_cache_local(c);
		CHECK_INT(s->ops->sweep(s, astra_time() + 10, &swept), 0);
		CHECK_INT(swept, 0);
		CHECK_INT(astra_cache_usage(astra_cache_local(c), &bytes, &entries), 0);
	}
	CHECK_INT(store(c, key, 90, ASTRA_VERDICT_FASTER, 1000), 0);
	CHECK(exists(path));
	free(path);
	astra_cache_close(c);
}

static void test_locks(void)
{
	struct astra_cache *c = astra_cache_open(dir);
	struct astra_cache_lock a = ASTRA_CACHE_LOCK_INIT, b = ASTRA_CACHE_LOCK_INIT;
	char key[33];
	double t;
	pid_t pid;
	int status;

	key_of(key, 3);
	CHECK_INT(astra_cache_lock_held(c, key, 90), 0);
	CHECK_INT(astra_cache_lock(c, key, 90, 0, &a), 1);
	CHECK_INT(astra_cache_lock_held(c, key, 90), 1);
	/* flock is per open file: a second open conflicts, even in-process. */
	t = astra_now();
	CHECK_INT(astra_cache_lock(c, key, 90, 0.3, &b), 0);
	CHECK(astra_now() - t >= 0.29);
	CHECK_INT(stat_of(ASTRA_STAT_LOCK_TIMEOUTS), 1);
	/* Another architecture is another lock. */
	CHECK_INT(astra_cache_lock(c, key, 80, 0, &b), 1);
	astra_cache_unlock(&b);
	astra_cache_unlock(&a);
	CHECK_INT(astra_cache_lock_held(c, key, 90), 0);

	/* A holder killed with SIGKILL: the lock is free at once. */
	pid = fork();
	if (pid == 0) {
		struct astra_cache_lock k = ASTRA_CACHE_LOCK_INIT;
		if (astra_cache_lock(c, key, 90, 0, &k) == 1)
			raise(SIGKILL);
		_exit(1);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
	t = astra_now();
	CHECK_INT(astra_cache_lock(c, key, 90, 5, &a), 1);
	CHECK(astra_now() - t < 0.5);
	astra_cache_unlock(&a);
	astra_cache_close(c);
}

static void test_cleanup(void)
{
	struct astra_cache *c;
	struct astra_cleanup_result r;
	char key[33], *paths[10], *tmp;
	long long bytes, entries, now = astra_time(), one, evicted;
	int i;

	/* An empty cache for this test. */
	c = astra_cache_open(dir);
	CHECK_INT(astra_cache_clear(astra_cache_local(c), &r), 0);
	CHECK_INT(astra_cache_usage(astra_cache_local(c), &bytes, &entries), 0);
	CHECK_INT(entries, 0);
	evicted = stat_of(ASTRA_STAT_EVICTED);

	for (i = 0; i < 10; i++) {
		key_of(key, 100 + i);
		CHECK_INT(store(c, key, 90, ASTRA_VERDICT_FASTER, 2000), 0);
		paths[i] = entry_path(key, 90);
		/* Entry i was last used i hours ago... */
		set_mtime(paths[i], now - 3600 * (i + 1));
	}
	/* ...except entry 9, the oldest, which a lookup uses now. */
	key_of(key, 109);
	CHECK_INT(lookup(c, key, 90), ASTRA_VERDICT_FASTER);
	CHECK_INT(astra_cache_usage(astra_cache_local(c), &bytes, &entries), 0);
	CHECK_INT(entries, 10);
	one = bytes / 10;

	/* A leftover temp file, an old one, and a fresh one (a write in progress). */
	tmp = xasprintf("%s.tmp.123.0", paths[0]);
	fclose(fopen(tmp, "w"));
	set_mtime(tmp, now - 2 * ASTRA_CLEANUP_TEMP_AGE);
	{
		char *fresh = xasprintf("%s.tmp.124.0", paths[1]);
		fclose(fopen(fresh, "w"));
		CHECK_INT(astra_cache_cleanup(astra_cache_local(c), 5 * one, 0, 1, &r), 0);
		CHECK(!exists(tmp));
		CHECK(exists(fresh));
		unlink(fresh);
		free(fresh);
	}
	/* Down to 90% of 5 entries: 4 stay, the most recently used. */
	CHECK_INT(r.entries, 4);
	CHECK_INT(r.removed_entries, 6);
	CHECK(r.bytes <= 5 * one * 9 / 10);
	CHECK(exists(paths[9]));
	for (i = 0; i < 3; i++)
		CHECK(exists(paths[i]));
	for (i = 3; i < 9; i++)
		CHECK(!exists(paths[i]));
	CHECK_INT(stat_of(ASTRA_STAT_EVICTED), evicted + 6);

	/* Evict what was not used in the last 90 minutes: entries 1 and 2. */
	CHECK_INT(astra_cache_cleanup(astra_cache_local(c), 0, now - 5400, 1, &r), 0);
	CHECK_INT(r.removed_entries, 2);
	CHECK(exists(paths[0]) && exists(paths[9]) && !exists(paths[1]) && !exists(paths[2]));

	/* A store over the limit cleans up by itself. */
	astra_cache_close(c);
	setenv("ASTRA_CC_MAX_SIZE", "10k", 1);
	astra_config_load();
	c = astra_cache_open(dir);
	for (i = 0; i < 10; i++) {
		key_of(key, 200 + i);
		CHECK_INT(store(c, key, 90, ASTRA_VERDICT_FASTER, 2000), 0);
	}
	CHECK_INT(astra_cache_usage(astra_cache_local(c), &bytes, &entries), 0);
	CHECK(bytes <= 10240);
	CHECK(entries >= 3);
	CHECK_INT(lookup(c, key, 90), ASTRA_VERDICT_FASTER); /* the newest stays */
	unsetenv("ASTRA_CC_MAX_SIZE");
	astra_config_load();

	CHECK_INT(astra_cache_clear(astra_cache_local(c), &r), 0);
	CHECK_INT(astra_cache_usage(astra_cache_local(c), &bytes, &entries), 0);
	CHECK_INT(entries, 0);
	CHECK_INT(bytes, 0);
	for (i = 0; i < 10; i++)
		free(paths[i]);
	free(tmp);
	astra_cache_close(c);
}

static void test_queue_and_devices(void)
{
	struct astra_cache *c = astra_cache_open(dir);
	struct astra_warmup_item it, *items;
	struct astra_device_ceilings d;
	size_t nr;
	char key[33];

	astra_warmup_item_init(&it);
	key_of(key, 7);
	it.key = xstrdup(key);
	it.cc = 90;
	it.kernel = xstrdup("rmsnorm");
	it.source = xstrdup("norm.cu");
	it.cwd = xstrdup("/src");
	it.queued = 100;
	astra_vec_push(&it.argv, "/usr/local/cuda/bin/nvcc");
	astra_vec_push(&it.argv, "-c");
	astra_vec_push(&it.argv, "norm.cu");
	CHECK_INT(astra_cache_queue_add(c, &it), 0);
	CHECK_INT(astra_cache_queue_add(c, &it), 0); /* the same kernel again: one item */
	free(it.key);
	key_of(key, 8);
	it.key = xstrdup(key);
	it.queued = 50;
	CHECK_INT(astra_cache_queue_add(c, &it), 0);
	astra_warmup_item_release(&it);
	CHECK_INT(astra_cache_queue_length(c), 2);
	CHECK_INT(astra_cache_queue_list(c, &items, &nr), 0);
	CHECK_INT(nr, 2);
	if (nr == 2) {
		CHECK_STR(items[0].key, key); /* oldest first */
		CHECK_INT(items[1].argv.nr, 3);
		CHECK_STR(items[1].argv.v[2], "norm.cu");
		CHECK_STR(items[1].cwd, "/src");
	}
	astra_warmup_items_free(items, nr);
	CHECK_INT(astra_cache_queue_remove(c, key, 90), 0);
	CHECK_INT(astra_cache_queue_length(c), 1);

	memset(&d, 0, sizeof(d));
	CHECK_INT(astra_cache_device_get(c, "NVIDIA H100 80GB HBM3", 90, &d), 0);
	d.device = xstrdup("NVIDIA H100 80GB HBM3");
	d.cc = 90;
	d.copy_gbps = 2900.5;
	d.fma_gflops = 51000;
	CHECK_INT(astra_cache_device_put(c, &d), 0);
	astra_device_ceilings_release(&d);
	CHECK_INT(astra_cache_device_get(c, "NVIDIA H100 80GB HBM3", 90, &d), 1);
	CHECK(d.copy_gbps == 2900.5);
	CHECK(d.measured > 0);
	astra_device_ceilings_release(&d);
	CHECK_INT(astra_cache_device_get(c, "NVIDIA H100 80GB HBM3", 80, &d), 0);
	astra_cache_close(c);
}

/* The path of object `name` in the file tier at d. */
static char *object_path(const char *d, const char *name)
{
	struct astra_storage *s = astra_storage_file_open(d);
	char *path = s->ops->where(s, name);
	s->ops->close(s);
	return path;
}

/*
 * Tiers: a local miss asks the remote tiers in order; a remote hit is
 * checked and copied into the local tier; a store writes every writable
 * tier and no read-only one; a corrupt remote entry is a miss and stays
 * where it is (a reader never deletes from a shared tier); a tier that
 * fails is skipped for the rest of the process.
 */
static void test_tiers(void)
{
	char remote[300], local[300], spec[320], key[33], key2[33], key3[33], *name, *lpath, *rpath;
	struct astra_cache *w, *c;
	struct astra_entry e;

	snprintf(remote, sizeof(remote), "%s-remote", dir);
	snprintf(local, sizeof(local), "%s-local", dir);
	key_of(key, 40);
	key_of(key2, 41);
	key_of(key3, 42);

	/* A warmup machine stores into the shared tier (its own local cache is `remote` here). */
	w = astra_cache_open(remote);
	CHECK_INT(store(w, key, 90, ASTRA_VERDICT_FASTER, 100), 0);
	astra_cache_close(w);

	/* A builder reads it through a read-only tier. */
	c = astra_cache_open(local);
	snprintf(spec, sizeof(spec), "file:%s|read-only", remote);
	CHECK_INT(astra_cache_add_tier(c, spec), 0);
	CHECK_INT(astra_cache_add_tier(c, "http-nope:whatever"), -1);
	CHECK_INT(astra_cache_add_tier(c, "file:relative/dir"), -1);
	name = astra_cache_entry_name(key, 90);
	lpath = object_path(local, name);
	CHECK(!exists(lpath));
	CHECK_INT(astra_cache_lookup(c, key, 90, &e), 1);
	CHECK(e.verdict == ASTRA_VERDICT_FASTER && e.variant && strlen(e.variant) == 100);
	astra_entry_release(&e);
	CHECK(exists(lpath));
	free(lpath);
	free(name);

	/* Stores stay off a read-only tier. */
	CHECK_INT(store(c, key2, 90, ASTRA_VERDICT_NO_FASTER, 0), 0);
	name = astra_cache_entry_name(key2, 90);
	rpath = object_path(remote, name);
	CHECK(!exists(rpath));
	free(rpath);
	free(name);
	astra_cache_close(c);

	/* ... and reach a writable one. */
	c = astra_cache_open(local);
	snprintf(spec, sizeof(spec), "file://%s", remote);
	CHECK_INT(astra_cache_add_tier(c, spec), 0);
	CHECK_INT(store(c, key3, 90, ASTRA_VERDICT_NO_FASTER, 0), 0);
	name = astra_cache_entry_name(key3, 90);
	rpath = object_path(remote, name);
	CHECK(exists(rpath));
	/* A corrupt remote entry is a miss, and is left alone. */
	{
		FILE *f = fopen(rpath, "w");
		fputs("not an entry", f);
		fclose(f);
	}
	astra_cache_close(c);
	lpath = object_path(local, name);
	unlink(lpath);
	c = astra_cache_open(local);
	snprintf(spec, sizeof(spec), "file:%s", remote);
	astra_cache_add_tier(c, spec);
	CHECK_INT(astra_cache_lookup(c, key3, 90, &e), 0);
	astra_entry_release(&e);
	CHECK(exists(rpath));
	CHECK(!exists(lpath));
	free(lpath);
	free(rpath);
	free(name);

	/* A tier that fails (a FIFO where an entry should be) is skipped from then on. */
	{
		char k4[33], k5[33];
		key_of(k4, 43);
		key_of(k5, 44);
		name = astra_cache_entry_name(k4, 90);
		rpath = object_path(remote, name);
		{
			char *d1 = xstrndup(rpath, (size_t)(strrchr(rpath, '/') - rpath));
			char *d0 = xstrndup(d1, (size_t)(strrchr(d1, '/') - d1));
			mkdir(d0, 0777);
			mkdir(d1, 0777);
			free(d0);
			free(d1);
		}
		CHECK_INT(mkfifo(rpath, 0600), 0);
		CHECK_INT(astra_cache_lookup(c, k4, 90, &e), 0);
		astra_entry_release(&e);
		free(rpath);
		free(name);
		w = astra_cache_open(remote);
		CHECK_INT(store(w, k5, 90, ASTRA_VERDICT_NO_FASTER, 0), 0);
		astra_cache_close(w);
		CHECK_INT(astra_cache_lookup(c, k5, 90, &e), 0);
		astra_entry_release(&e);
	}
	astra_cache_close(c);
}

int main(void)
{
	char cwd[200];
	if (!getcwd(cwd, sizeof(cwd)))
		return 99;
	snprintf(dir, sizeof(dir), "%s/test-store.%ld", cwd, (long)getpid());
	mkdir(dir, 0777);
	snprintf(dir, sizeof(dir), "%s/test-store.%ld/cache", cwd, (long)getpid());
	unsetenv("ASTRA_CC_FAULT");
	unsetenv("ASTRA_CC_MAX_SIZE");
	setenv("ASTRA_CC_CONFIGPATH", "/nonexistent/astra-cc.conf", 1);
	astra_config_load();

	test_basics();
	test_faults();
	test_locks();
	test_cleanup();
	test_queue_and_devices();
	test_tiers();
	return unit_done();
}
