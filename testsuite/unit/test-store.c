/*
 * Unit tests for the cache store (store.c, storage-file.c, lock.c,
 * cleanup.c, queue.c, device.c, fsio.c) in one process, in a scratch
 * directory.  The multi-process behaviour (kill -9, 32 concurrent
 * processes) is tested by the cases in testsuite/cases/cache/.
 */
#include "autoconfig.h"

#include <errno.h>
#include <limits.h>
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
#include "lib/toolmemo.h"
#include <dirent.h>
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
	/* Issue 28: a misspelt attribute refuses the tier (it was ignored: `|readonly` left it writable). */
	{
		struct astra_cache *t = astra_cache_open(local);
		char bad[340];
		snprintf(bad, sizeof(bad), "file:%s|readonly", remote);
		CHECK_INT(astra_cache_add_tier(t, bad), -1);
		snprintf(bad, sizeof(bad), "file:%s|read-only|", remote);
		CHECK_INT(astra_cache_add_tier(t, bad), -1);
		CHECK_INT(astra_cache_add_tier(t, "http://127.0.0.1:9/cache/|readonly"), -1);
		CHECK_INT(astra_cache_add_tier(t, "http://127.0.0.1:9/cache/|connect-timeout=soon"), -1);
		CHECK_INT(astra_cache_add_tier(t, "http://127.0.0.1:9/cache/|read-only|connect-timeout=500"), 0);
		astra_cache_close(t);
	}
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

/* Write len bytes of c at path (the victim's files). */
static void plant(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int same_text(const char *path, const char *text)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	int same = astra_buf_read_file(&b, path, 0) == 0 && !strcmp(b.buf, text);
	astra_buf_release(&b);
	return same;
}

/*
 * Someone who can write the cache directory replaces a two-level directory
 * with a symbolic link to a victim's directory.  Nothing astra-cc does
 * through the cache may read, write, touch or delete the victim's files,
 * even for an operation on a name it listed before the swap.
 */
static void test_links(void)
{
	struct astra_cache *c = astra_cache_open(dir);
	struct astra_storage *s = astra_cache_local(c);
	struct astra_cleanup_result r;
	struct astra_entry e;
	struct astra_cache_lock lk = ASTRA_CACHE_LOCK_INIT;
	char key[33], *victim, *vsub, *vfile, *vtmp, *vlock, *l1, *name, *path;
	struct stat before, after;
	long long t = astra_time() - 7200;

	/* The victim: a directory that happens to hold files with the cache's names. */
	key_of(key, 0xab);             /* "ab0000...": level one "ab", level two "00" */
	victim = xasprintf("%s/../victim", dir);
	vsub = xasprintf("%s/00", victim);
	mkdir(victim, 0755);
	mkdir(vsub, 0755);
	name = astra_cache_entry_name(key, 90);
	vfile = xasprintf("%s/%s", vsub, name);
	vtmp = xasprintf("%s/%s.tmp.1.0", vsub, name);
	vlock = xasprintf("%s/%.*s-90.lock", vsub, 32, key);
	{
		/* A valid entry for the key, made in a cache of its own and moved there. */
		char *other = xasprintf("%s/../other-cache", dir);
		struct astra_cache *o = astra_cache_open(other);
		char *opath;
		struct astra_storage *os = astra_cache_local(o);
		CHECK_INT(store(o, key, 90, ASTRA_VERDICT_FASTER, 64), 0);
		opath = os->ops->where(os, name);
		CHECK_INT(rename(opath, vfile), 0);
		free(opath);
		astra_cache_close(o);
		free(other);
	}
	plant(vtmp, "the victim's notes\n");
	plant(vlock, "the victim's lock-named file\n");
	set_mtime(vfile, t);
	set_mtime(vtmp, t);
	CHECK_INT(stat(vfile, &before), 0);

	/* The cache's own level-one directory "ab" is the link. */
	astra_storage_file_create(s);
	l1 = xasprintf("%s/ab", dir);
	CHECK_INT(symlink(victim, l1), 0);

	CHECK_INT(astra_cache_lookup(c, key, 90, &e), 0);  /* the victim's entry is not ours */
	astra_entry_release(&e);
	CHECK_INT(s->ops->touch(s, name), -1);
	CHECK_INT(s->ops->head(s, name, NULL), -1);
	CHECK(store(c, key, 90, ASTRA_VERDICT_NO_FASTER, 0) < 0);
	CHECK_INT(astra_cache_lock(c, key, 90, 0, &lk), -1);
	astra_cache_unlock(&lk);
	CHECK_INT(astra_cache_remove(c, key, 90), -1);
	CHECK_INT(s->ops->remove(s, name), -1);
	CHECK_INT(astra_cache_cleanup(s, 1, astra_time() + 10, 1, &r), 0);
	CHECK_INT(astra_cache_clear(s, &r), 0);

	/* The victim's files are all there, unchanged, untouched. */
	CHECK(same_text(vtmp, "the victim's notes\n"));
	CHECK(same_text(vlock, "the victim's lock-named file\n"));
	CHECK_INT(stat(vfile, &after), 0);
	CHECK_INT(after.st_mtime, before.st_mtime);
	CHECK_INT(after.st_ino, before.st_ino);
	{
		struct stat st;
		path = xasprintf("%s/%s", vsub, "x");
		CHECK_INT(lstat(l1, &st), 0);  /* -C does not remove the link's target either */
		CHECK(S_ISLNK(st.st_mode));
		free(path);
	}
	/* The same at the second level: ab/00 a link. */
	unlink(l1);
	mkdir(l1, 0755);
	path = xasprintf("%s/00", l1);
	CHECK_INT(symlink(vsub, path), 0);
	CHECK_INT(astra_cache_lookup(c, key, 90, &e), 0);
	astra_entry_release(&e);
	CHECK(store(c, key, 90, ASTRA_VERDICT_NO_FASTER, 0) < 0);
	CHECK_INT(astra_cache_remove(c, key, 90), -1);
	CHECK_INT(astra_cache_clear(s, &r), 0);
	CHECK_INT(stat(vfile, &after), 0);
	CHECK_INT(after.st_ino, before.st_ino);
	CHECK(same_text(vtmp, "the victim's notes\n"));
	unlink(path);
	rmdir(l1);
	free(path);

	unlink(vfile);
	unlink(vtmp);
	unlink(vlock);
	rmdir(vsub);
	rmdir(victim);
	free(victim);
	free(vsub);
	free(vfile);
	free(vtmp);
	free(vlock);
	free(l1);
	free(name);
	astra_cache_close(c);
}

static void on_alarm(int sig)
{
	static const char msg[] = "test-store: an open blocked on a FIFO\n";
	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to do */
	}
	_exit(1);
}

/* FIFOs where the cache keeps its files: nothing waits for a writer. */
static void test_fifos(void)
{
	struct astra_cache *c = astra_cache_open(dir);
	struct astra_storage *s = astra_cache_local(c);
	struct astra_cache_lock lk = ASTRA_CACHE_LOCK_INIT;
	long long v[ASTRA_STAT__COUNT];
	char key[33], *p, *name;

	signal(SIGALRM, on_alarm);
	alarm(20);
	astra_storage_file_create(s);
	p = xasprintf("%s/stats", dir);
	unlink(p);
	CHECK_INT(mkfifo(p, 0600), 0);
	CHECK_INT(astra_stats_read(dir, v), 0);
	astra_stats_inc(ASTRA_STAT_HITS);
	astra_stats_flush(dir);           /* replaces the FIFO by a file (rename) */
	free(p);
	p = xasprintf("%s/stats.lock", dir);
	unlink(p);
	CHECK_INT(mkfifo(p, 0600), 0);
	astra_stats_inc(ASTRA_STAT_HITS);
	CHECK_INT(astra_stats_flush(dir), -1);   /* a FIFO is no lock */
	unlink(p);
	free(p);

	key_of(key, 0x77);
	name = xasprintf("%.*s-90.lock", 32, key);
	CHECK_INT(store(c, key, 90, ASTRA_VERDICT_NO_FASTER, 0), 0);
	p = s->ops->where(s, name);
	CHECK_INT(mkfifo(p, 0600), 0);
	CHECK_INT(astra_cache_lock(c, key, 90, 0, &lk), -1);
	CHECK_INT(astra_cache_lock_held(c, key, 90), 0);
	unlink(p);
	free(p);
	free(name);
	alarm(0);
	astra_cache_close(c);
}

/* Entries someone else wrote, or can rewrite, are misses (lib/trust.h). */
static void test_owners(void)
{
	struct astra_cache *c = astra_cache_open(dir);
	struct astra_entry e;
	struct astra_json *m = NULL;
	struct astra_storage_stat st;
	const char *why;
	char key[33], *path;
	long long untrusted;

	key_of(key, 0x55);
	CHECK_INT(store(c, key, 90, ASTRA_VERDICT_FASTER, 32), 0);
	path = entry_path(key, 90);
	CHECK_INT(lookup(c, key, 90), ASTRA_VERDICT_FASTER);
	untrusted = stat_of(ASTRA_STAT_UNTRUSTED);

	/* Created with the cache's umask: no group or other write unless asked. */
	{
		struct stat fst;
		CHECK_INT(stat(path, &fst), 0);
		CHECK_INT(fst.st_mode & 022, 0);
	}
	/* Writable by everyone: a miss, left in place, counted. */
	CHECK_INT(chmod(path, 0666), 0);
	CHECK_INT(lookup(c, key, 90), 0);
	CHECK(exists(path));
	CHECK_INT(stat_of(ASTRA_STAT_UNTRUSTED), untrusted + 1);
	CHECK_INT(astra_cache_peek(c, key, 90, &e, &m, &st, &why), -1);
	CHECK_STR(why, "written by someone you do not trust");
	astra_entry_release(&e);
	/* Writable by a group that is not trusted_group: the same. */
	CHECK_INT(chmod(path, 0664), 0);
	CHECK_INT(lookup(c, key, 90), 0);
	{
		struct stat fst;
		char gid[32];
		CHECK_INT(stat(path, &fst), 0);
		snprintf(gid, sizeof(gid), "%u", (unsigned)fst.st_gid);
		astra_config_set(ASTRA_CFG_TRUSTED_GROUP, gid, "test");
		CHECK_INT(lookup(c, key, 90), ASTRA_VERDICT_FASTER);
		astra_config_set(ASTRA_CFG_TRUSTED_GROUP, "", "test");
	}
	CHECK_INT(chmod(path, 0644), 0);
	CHECK_INT(lookup(c, key, 90), ASTRA_VERDICT_FASTER);
	if (geteuid() == 0) {
		/* Another user's file (root can make one): a miss. */
		CHECK_INT(chown(path, 4242, 4242), 0);
		CHECK_INT(lookup(c, key, 90), 0);
		CHECK(exists(path));
		CHECK_INT(chown(path, 0, 0), 0);
		CHECK_INT(lookup(c, key, 90), ASTRA_VERDICT_FASTER);
	}
	/* A tier that cannot say who wrote an object (HTTP): trusted as its server; require_signature insists on more. */
	memset(&st, 0, sizeof(st));
	CHECK_INT(astra_cache_trusted(astra_cache_local(c), "x.entry", &st), 1);
	/* An owner that is not trusted, on a tier that can say: refused. */
	st.has_owner = 1;
	st.uid = 4242 == geteuid() ? 4243 : 4242;
	st.mode = 0100644;
	CHECK_INT(astra_cache_trusted(astra_cache_local(c), "x.entry", &st), 0);
	st.has_owner = 1;
	st.uid = (unsigned)geteuid();
	st.mode = 0100644;
	CHECK_INT(astra_cache_trusted(astra_cache_local(c), "x.entry", &st), 1);

	/* The umask setting: group-shared files. */
	astra_config_set(ASTRA_CFG_UMASK, "002", "test");
	CHECK_INT(store(c, key, 90, ASTRA_VERDICT_FASTER, 32), 0);
	{
		struct stat fst;
		CHECK_INT(stat(path, &fst), 0);
		CHECK_INT(fst.st_mode & 0777, 0664);
	}
	astra_config_set(ASTRA_CFG_UMASK, "", "test");
	free(path);
	astra_cache_close(c);
}

/*
 * Run fn in a child whose pid is known before it writes: the parent plants
 * links named after that pid (the names astra-cc's temporary files get),
 * then lets the child go.
 */
static void with_planted_child(void (*plant_for)(pid_t, void *), void (*fn)(void *), void *data)
{
	int go[2];
	pid_t pid;
	char c = 0;
	int st;
	CHECK_INT(pipe(go), 0);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		fn(data);
		_exit(0);
	}
	close(go[0]);
	plant_for(pid, data);
	CHECK_INT(write(go[1], &c, 1), 1);
	close(go[1]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static char *victim_file;

static void plant_stats(pid_t pid, void *data)
{
	int n;
	char *p = xasprintf("%s/stats.tmp.%ld", dir, (long)pid);
	(void)data;
	CHECK_INT(symlink(victim_file, p), 0);
	free(p);
	for (n = 0; n < 4; n++) {
		p = xasprintf("%s/stats.tmp.%ld.%d", dir, (long)pid, n);
		CHECK_INT(symlink(victim_file, p), 0);
		free(p);
	}
}

static void flush_stats(void *data)
{
	(void)data;
	astra_stats_inc(ASTRA_STAT_HITS);
	if (astra_stats_flush(dir) < 0)
		_exit(1);
}

static void plant_memo(pid_t pid, void *data)
{
	char *p = xasprintf("%s.tmp.%ld", (const char *)data, (long)pid);
	CHECK_INT(symlink(victim_file, p), 0);
	free(p);
}

static void run_memo(void *data)
{
	char *const argv[] = { (char *)"echo", (char *)"remembered", NULL };
	struct astra_buf b = ASTRA_BUF_INIT;
	char *mdir = xstrdup((const char *)data);
	*strrchr(mdir, '/') = '\0';
	if (astra_toolmemo_run(argv, ASTRA_TOOLMEMO_STDOUT, NULL, mdir, &b) < 0)
		_exit(1);
	astra_buf_release(&b);
	free(mdir);
}

/* Links planted where astra-cc's temporary files go: never written through. */
static void test_tmp_links(void)
{
	char *mdir = xasprintf("%s/memo-test", dir), *memo = NULL;
	struct astra_buf b = ASTRA_BUF_INIT;
	DIR *d;
	struct dirent *de;

	victim_file = xasprintf("%s/../victim-file", dir);
	plant(victim_file, "the victim's file\n");
	astra_stats_flush(dir);
	with_planted_child(plant_stats, flush_stats, NULL);
	CHECK(same_text(victim_file, "the victim's file\n"));

	/* The memo: made once to learn its name, then removed, then remembered again. */
	run_memo(mdir == NULL ? NULL : xasprintf("%s/x", mdir));
	d = opendir(mdir);
	while (d && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			memo = xasprintf("%s/%s", mdir, de->d_name);
	if (d)
		closedir(d);
	CHECK(memo != NULL);
	if (memo) {
		unlink(memo);
		with_planted_child(plant_memo, run_memo, memo);
		CHECK(same_text(victim_file, "the victim's file\n"));
		CHECK_INT(astra_buf_read_file(&b, memo, 0), 0);
		CHECK(memmem(b.buf, b.len, "remembered", 10) != NULL);
	}
	astra_buf_release(&b);
	unlink(victim_file);
	free(victim_file);
	free(memo);
	free(mdir);
}

/* A counter at its maximum stays there (it overflowed: UBSan, cache/stats.c). */
static void test_saturation(void)
{
	struct astra_storage *s = astra_storage_file_open(dir);
	static const char text[] = "hits 9223372036854775807\nmisses 9223372036854775806\n";
	long long v[ASTRA_STAT__COUNT];
	astra_stats_flush(dir);
	astra_storage_file_create(s);
	CHECK_INT(s->ops->put(s, "stats", text, sizeof(text) - 1), 0);
	astra_stats_inc(ASTRA_STAT_HITS);
	astra_stats_add(ASTRA_STAT_MISSES, 5);
	CHECK_INT(astra_stats_flush(dir), 0);
	astra_stats_read(dir, v);
	CHECK(v[ASTRA_STAT_HITS] == LLONG_MAX);
	CHECK(v[ASTRA_STAT_MISSES] == LLONG_MAX);
	s->ops->close(s);
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
	test_links();
	test_fifos();
	test_owners();
	test_tmp_links();
	test_saturation();
	return unit_done();
}
