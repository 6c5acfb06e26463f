/*
 * cleanup.h - keeping the cache within its limits: size, LRU eviction,
 * age eviction, clearing, and sweeping what crashed processes left.
 *
 * Separate from the store because it is the only part that walks the whole
 * cache; lookups and stores touch one entry each.
 *
 * Sizes are apparent file sizes (st_size) of entries and transcripts.
 * "Last use" is an entry file's mtime (a hit touches it).  When the cache
 * is over max_size, cleanup removes entries (with their transcripts) from
 * the least recently used until the total is at most 90% of max_size, so
 * that the next few stores do not each trigger a cleanup (as ccache does).
 * Cleanups are serialized by the local tier's lock "cleanup.lock".  These
 * are chores of the local directory tier: they take it, not the store
 * (the store calls them; they never call the store).
 */
#ifndef ASTRA_CLEANUP_H
#define ASTRA_CLEANUP_H

#include "cache/storage.h"

/* Temporary files older than this many seconds are leftovers. */
#define ASTRA_CLEANUP_TEMP_AGE 3600

struct astra_cleanup_result {
	long long entries, bytes;                 /* what is left */
	long long removed_entries, removed_bytes; /* what went (bytes include transcripts) */
	long long swept;                          /* leftover temp/lock files and orphans removed */
};

/* Total bytes and number of entries.  0, or -1 when the cache cannot be read. */
int astra_cache_usage(struct astra_storage *local, long long *bytes, long long *entries);

/*
 * Clean up: evict entries last used before unused_since (seconds since the
 * epoch; 0: no age limit), then, if the total exceeds max_size (0: no
 * limit), the least recently used down to 90% of max_size; remove
 * transcripts without an entry and temporary files older than
 * ASTRA_CLEANUP_TEMP_AGE, and lock files nobody holds.  wait: 1 to wait
 * for a cleanup running in another process, 0 to skip in that case.
 * Returns 0 (r filled), 1 (skipped: another process is cleaning), or -1.
 */
int astra_cache_cleanup(struct astra_storage *local, long long max_size, long long unused_since, int wait,
			struct astra_cleanup_result *r);

/*
 * Remove every entry and transcript, every temporary file and every lock
 * file nobody holds, and the directories left empty.  The statistics, the
 * configuration, the warmup queue and the device ceilings stay.  Returns 0 or -1.
 */
int astra_cache_clear(struct astra_storage *local, struct astra_cleanup_result *r);

#endif
