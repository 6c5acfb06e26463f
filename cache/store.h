/*
 * store.h - the cache of verified variants, as its callers see it.
 *
 * Callers:
 *   - the compile pipeline (passes/pipeline.c): for each annotated kernel,
 *     astra_cache_lookup(key, cc).  A hit gives the verdict: FASTER with
 *     the variant's text (its launch geometry is a `#pragma astra launch`
 *     line inside that text), NO_FASTER or FAILED (compile the original).
 *     A miss in `use` mode: astra_cache_queue_add() (cache/queue.h).
 *   - the optimization loop (agents/loop.c): per (key, cc), take the lock
 *     (cache/lock.h), look up again (another process may have finished
 *     while this one waited), optimize, astra_cache_store(), unlock.
 *   - astra-cc's commands (-s, --list, --show-entry, -C, --cleanup, ...).
 *
 * Trust: an entry is used only when its file was written by the user, by
 * root or by a member of `trusted_group`, and nobody else can rewrite it
 * (astra_cache_trusted below; doc/cache.md, "Sharing a cache").  Anything
 * else is a miss.
 *
 * Failure is a miss: nothing here fails a build.  An unreadable, missing,
 * read-only or full cache directory makes lookups miss and stores fail;
 * the reason is logged and counted (cache/stats.h), never printed.  A
 * corrupt entry, or one of an unknown format version, is logged, counted,
 * removed (so the next optimization replaces it) and reported as a miss;
 * it is never substituted.
 *
 * Statistics counted here: HITS (+ HITS_<verdict>), MISSES,
 * CORRUPT_ENTRIES, UNKNOWN_FORMAT, VERDICT_<verdict> for each store,
 * CACHE_UNWRITABLE / CACHE_FULL / CACHE_IO_ERRORS, CLEANUPS, EVICTED.
 * The caller flushes them (astra_stats_flush) as the driver does.
 *
 * Entries live in storage tiers (cache/storage.h): the local directory,
 * then the `remote_storage` tiers in order.  A lookup tries local then
 * each remote (copying a remote hit into the local tier, after the same
 * checks); a store writes local and every remote not marked read-only.
 * The warmup queue and the device ceilings live on the local tier only.
 *
 * Signatures (cache/sign.h): a store signs the entry on every tier it
 * writes when `signing_key_file` is set; with `require_signature` a
 * lookup uses only an entry whose signature verifies (else a miss, logged
 * and counted as UNSIGNED), and a remote hit's signature is copied with
 * it.
 */
#ifndef ASTRA_STORE_H
#define ASTRA_STORE_H

#include "lib/buf.h"
#include "cache/manifest.h"
#include "cache/names.h"
#include "cache/storage.h"

struct astra_cache;

/*
 * Open the cache in dir (NULL: the `dir` setting).  Never fails and
 * creates nothing: directories are made by the first store.  max_size is
 * taken from the `max_size` setting (0: no limit).
 */
struct astra_cache *astra_cache_open(const char *dir);
void astra_cache_close(struct astra_cache *c);

/*
 * Add a tier after the others (what the `remote_storage` setting does for
 * each of its space-separated words): "file:/dir", "file:///dir" or
 * "http(s)://host:port/path/" (cache/storage-http.c), with "|read-only"
 * after it for a tier this process must not write (and, for HTTP,
 * "|connect-timeout=MS|operation-timeout=MS").  Returns 0, or -1 (logged)
 * for a tier astra-cc cannot use (it is skipped).
 */
int astra_cache_add_tier(struct astra_cache *c, const char *spec);

/* The cache directory (owned by c). */
const char *astra_cache_dir(const struct astra_cache *c);
/* The local storage tier (owned by c), for commands that walk it. */
struct astra_storage *astra_cache_local(struct astra_cache *c);

/*
 * Look up the verdict for (key, cc).  Returns 1 on a hit (out is filled:
 * the caller releases it with astra_entry_release) or 0 on a miss (out is
 * left initialized and empty).  A hit records the entry's use for LRU
 * cleanup.  Cost: one open and read of a few kilobytes; a miss is one
 * failed open.
 */
int astra_cache_lookup(struct astra_cache *c, const char *key, int cc, struct astra_entry *out);

/*
 * astra_cache_lookup with one more check of each entry that passed the
 * cache's own (format, checksum, key, signature), which the cache cannot
 * make itself: the compile pipeline's candidate check of the variant
 * against the kernel (passes/pipeline.c).  check returns 0 (usable) or -1
 * with the reasons appended to why; it may be called once per tier.  An
 * entry that fails it is corrupt: logged with its full name, counted
 * (CORRUPT_ENTRIES, not a hit), removed from the local tier (so the miss
 * queues the kernel and the next optimization replaces it) and, from a
 * remote tier, left there and not copied into the local one; the lookup
 * goes on with the next tier.
 */
int astra_cache_lookup_checked(struct astra_cache *c, const char *key, int cc, struct astra_entry *out,
			       int (*check)(const struct astra_entry *e, void *ctx, struct astra_buf *why), void *ctx);

/*
 * Store e, replacing any entry for (e->key, e->cc).  transcript, if not
 * NULL, is the LLM conversation (a JSON array, transcript_len bytes) kept
 * beside the entry; its checksum goes into the manifest.  e->created is set
 * to now when 0 (so e is modified).  Afterwards, if the cache is over its
 * size limit, an LRU cleanup runs (skipped when another process is already
 * cleaning).  Returns 0, or -1 (logged and counted; the build goes on).
 */
int astra_cache_store(struct astra_cache *c, struct astra_entry *e, const char *transcript,
		      size_t transcript_len);

/*
 * Read an entry without counting it as a lookup or touching it (for
 * --show-entry and --list).  manifest_out: as astra_entry_decode.  st:
 * size and last use of the entry file.  Returns 1, 0 (absent) or -1
 * (corrupt, unreadable, or written by someone not trusted: *why says which;
 * the entry is left in place; nothing is counted or logged).
 */
int astra_cache_peek(struct astra_cache *c, const char *key, int cc, struct astra_entry *out,
		     struct astra_json **manifest_out, struct astra_storage_stat *st, const char **why);

/*
 * The transcript stored with (key, cc), checked against the entry's
 * manifest.  Returns 1 (appended to out), 0 (none) or -1 (corrupt or
 * unreadable).
 */
int astra_cache_transcript(struct astra_cache *c, const char *key, int cc, struct astra_buf *out);

/*
 * Is object `name` of tier s, whose get() filled st, written by someone
 * the user trusts (lib/trust.h)?  1 yes; 0 no: counted (untrusted_files),
 * and the first refusal of the process is logged with its reason (later
 * ones are traced), so that a shared cache full of someone else's files
 * costs one warning, not one per lookup.  Every reader of entries,
 * transcripts, queue items and device ceilings asks this before using
 * what it read; an untrusted object is a miss and is left in place.
 */
int astra_cache_trusted(struct astra_storage *s, const char *name, const struct astra_storage_stat *st);

/* Remove the entry for (key, cc) and its transcript.  0 or -1. */
int astra_cache_remove(struct astra_cache *c, const char *key, int cc);

#endif
