/*
 * lock.c - per-(key, cc) optimization locks (see lock.h), on the local
 * tier's flock(2) locks: "<key>-<cc>.lock" beside the entry.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cache/fsio.h"
#include "cache/lock.h"
#include "cache/stats.h"
#include "lib/log.h"

static char *lock_name(const char *key, int cc)
{
	return xasprintf("%s-%d.lock", key, cc);
}

int astra_cache_lock(struct astra_cache *c, const char *key, int cc, double wait,
		     struct astra_cache_lock *lk)
{
	char *name;
	int got;

	lk->f.fd = -1;
	lk->f.dir = -1;
	lk->f.name = NULL;
	if (!astra_key_ok(key) || cc <= 0)
		return error("cache lock with an invalid key or architecture");
	name = lock_name(key, cc);
	got = astra_storage_file_lock(astra_cache_local(c), name, wait < 0 ? 0 : wait, &lk->f);
	if (got < 0) {
		warning("cannot lock %s in %s: %s", name, astra_cache_dir(c), strerror(errno));
		astra_fsio_count(errno);
	} else if (got == 0) {
		astra_trace(ASTRA_TRACE_CACHE, "gave up waiting for %s after %.1f s", name, wait);
		astra_stats_inc(ASTRA_STAT_LOCK_TIMEOUTS);
	} else {
		struct astra_buf b = ASTRA_BUF_INIT;
		char host[256] = "";
		/* For people looking at a lock: who holds it. */
		gethostname(host, sizeof(host) - 1);
		astra_buf_addf(&b, "pid %ld on %s since %lld\n", (long)getpid(), host, astra_time());
		if (ftruncate(lk->f.fd, 0) == 0 && pwrite(lk->f.fd, b.buf, b.len, 0) < 0) {
			/* Informational only. */
		}
		astra_buf_release(&b);
		astra_trace(ASTRA_TRACE_CACHE, "locked %s sm_%d", key, cc);
	}
	free(name);
	return got;
}

void astra_cache_unlock(struct astra_cache_lock *lk)
{
	/* Removed by its holder: see lock.h. */
	astra_storage_file_unlock(&lk->f, 1);
}

int astra_cache_lock_held(struct astra_cache *c, const char *key, int cc)
{
	char *name = lock_name(key, cc);
	int held = astra_storage_file_lock_held(astra_cache_local(c), name);
	free(name);
	return held;
}
