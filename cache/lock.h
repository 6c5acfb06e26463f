/*
 * lock.h - one optimization per (key, architecture) across processes.
 *
 * When `make -j32` meets the same kernel 32 times, one process optimizes
 * it and the others wait for its verdict (bounded by the `lock_wait`
 * setting) or compile the original.  The lock is the local tier's flock(2)
 * lock "<key>-<cc>.lock", beside the entry: the kernel releases it when its
 * holder exits or is killed (kill -9 included), so a crashed optimizer never
 * leaves a lock that has to be broken by guesswork (pids, boot ids, ages).
 * On NFS, Linux maps flock to POSIX byte-range locks, which the server
 * releases when the client's process dies.
 *
 * Lock files are removed by their holder on release.  Removing a lock file
 * is racy in general (a waiter may have opened the old file); the race is
 * closed on the acquiring side: after flock succeeds, the locker checks that
 * the path still names the file it locked (same device and inode) and
 * starts over otherwise.
 *
 * Use (the optimization loop):
 *
 *   struct astra_cache_lock lk = ASTRA_CACHE_LOCK_INIT;
 *   switch (astra_cache_lock(c, key, cc, astra_config_int(ASTRA_CFG_LOCK_WAIT), &lk)) {
 *   case 1:  if (!astra_cache_lookup(c, key, cc, &e)) { optimize; astra_cache_store(...); }
 *            astra_cache_unlock(&lk); break;
 *   case 0:  compile the original (someone else is still optimizing);
 *   case -1: compile the original (the cache is not writable: nothing could be stored)
 *   }
 */
#ifndef ASTRA_LOCK_H
#define ASTRA_LOCK_H

#include "cache/store.h"

struct astra_cache_lock {
	struct astra_file_lock f;
};

#define ASTRA_CACHE_LOCK_INIT { ASTRA_FILE_LOCK_INIT }

/*
 * Take the lock for (key, cc), waiting up to wait seconds (0: try once).
 * Returns 1 (held: release with astra_cache_unlock), 0 (another process
 * held it for the whole wait; counted as LOCK_TIMEOUTS) or -1 (the lock
 * file cannot be created: logged and counted like any cache write failure).
 */
int astra_cache_lock(struct astra_cache *c, const char *key, int cc, double wait,
		     struct astra_cache_lock *lk);

/* Release a held lock (removing its file); a no-op on an unheld one. */
void astra_cache_unlock(struct astra_cache_lock *lk);

/*
 * Is (key, cc) locked by some process right now?  1, 0, or -1.  For
 * --show-entry and tests; the answer may be stale by the time it returns.
 */
int astra_cache_lock_held(struct astra_cache *c, const char *key, int cc);

#endif
