/*
 * store.c - lookups and stores of verified variants (see store.h).
 *
 * This is the policy layer over the storage tiers: it names objects,
 * checks every entry it reads (manifest.c), decides what a failure means
 * (always: a miss, logged and counted), records uses for LRU, and triggers
 * cleanup when a store takes the cache over its limit.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "astra-cc/config.h"
#include "astra-cc/json.h"
#include "astra-cc/log.h"
#include "cache/cleanup.h"
#include "cache/fsio.h"
#include "cache/stats.h"
#include "cache/store.h"

struct astra_cache {
	char *dir;
	struct astra_storage *local;
	long long max_size;
};

struct astra_cache *astra_cache_open(const char *dir)
{
	struct astra_cache *c = xcalloc(1, sizeof(*c));
	if (!dir)
		dir = astra_config_str(ASTRA_CFG_DIR);
	c->local = astra_storage_file_open(dir);
	c->dir = xstrdup(c->local->url);
	c->max_size = astra_config_int(ASTRA_CFG_MAX_SIZE);
	return c;
}

void astra_cache_close(struct astra_cache *c)
{
	if (!c)
		return;
	c->local->ops->close(c->local);
	free(c->dir);
	free(c);
}

const char *astra_cache_dir(const struct astra_cache *c)
{
	return c->dir;
}

struct astra_storage *astra_cache_local(struct astra_cache *c)
{
	return c->local;
}

char *astra_cache_entry_name(const char *key, int cc)
{
	return xasprintf("%s-%d.entry", key, cc);
}

char *astra_cache_transcript_name(const char *key, int cc)
{
	return xasprintf("%s-%d.transcript", key, cc);
}

int astra_cache_parse_name(const char *name, char *key, int *cc)
{
	const char *p = name + 32;
	char *end;
	long v;
	if (strlen(name) < 34 || *p != '-')
		return 0;
	memcpy(key, name, 32);
	key[32] = '\0';
	if (!astra_key_ok(key) || p[1] < '1' || p[1] > '9')
		return 0;
	v = strtol(p + 1, &end, 10);
	if (v <= 0 || v > 9999)
		return 0;
	*cc = (int)v;
	if (!strcmp(end, ".entry"))
		return 1;
	if (!strcmp(end, ".transcript"))
		return 2;
	return 0;
}

/* Log and count a storage failure; the operation becomes a miss. */
static void storage_failed(struct astra_cache *c, const char *what, const char *name, int err)
{
	warning("cache %s: cannot %s %s: %s", c->dir, what, name, strerror(err));
	astra_fsio_count(err);
}

static void miss(const char *key, int cc, const char *why)
{
	astra_trace(ASTRA_TRACE_CACHE, "miss %s sm_%d: %s", key ? key : "(no key)", cc, why);
	astra_stats_inc(ASTRA_STAT_MISSES);
}

int astra_cache_lookup(struct astra_cache *c, const char *key, int cc, struct astra_entry *out)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_storage_stat st;
	const char *why = NULL;
	char *name;
	int r;

	astra_entry_init(out);
	if (!astra_key_ok(key) || cc <= 0) {
		/* A caller bug, but still only a miss for the build. */
		warning("cache lookup with an invalid key or architecture (%s, %d)", key ? key : "(null)", cc);
		miss(key, cc, "invalid key");
		return 0;
	}
	name = astra_cache_entry_name(key, cc);
	r = c->local->ops->get(c->local, name, &b, &st);
	if (r < 0) {
		storage_failed(c, "read", name, errno);
		miss(key, cc, "unreadable");
		goto out;
	}
	if (r == 0) {
		miss(key, cc, "no entry");
		goto out;
	}
	switch (astra_entry_decode(b.buf, b.len, key, cc, out, NULL, &why)) {
	case ASTRA_DECODE_OK:
		break;
	case ASTRA_DECODE_UNKNOWN:
		/*
		 * Perhaps a newer astra-cc shares this directory: leave the
		 * file for it; our next store replaces it.
		 */
		warning("cache entry %s/%s: %s; treated as a miss", c->dir, name, why);
		astra_stats_inc(ASTRA_STAT_UNKNOWN_FORMAT);
		miss(key, cc, why);
		r = 0;
		goto out;
	case ASTRA_DECODE_CORRUPT:
		/*
		 * Removing it lets the next optimization replace it.  If a
		 * writer renamed a good entry over it since we read it, this
		 * removes the good one: that costs one re-optimization, never
		 * a wrong substitution, so it is not worth a compare-and-delete.
		 */
		warning("cache entry %s/%s is corrupt: %s; removed, treated as a miss", c->dir, name, why);
		astra_stats_inc(ASTRA_STAT_CORRUPT_ENTRIES);
		if (c->local->ops->remove(c->local, name) < 0)
			astra_trace(ASTRA_TRACE_CACHE, "cannot remove %s: %s", name, strerror(errno));
		miss(key, cc, why);
		r = 0;
		goto out;
	}
	/* Record the use for LRU; a read-only cache simply does not. */
	if (c->local->ops->touch(c->local, name) < 0)
		astra_trace(ASTRA_TRACE_CACHE, "cannot record the use of %s: %s", name, strerror(errno));
	astra_stats_inc(ASTRA_STAT_HITS);
	astra_stats_inc(out->verdict == ASTRA_VERDICT_FASTER ? ASTRA_STAT_HITS_FASTER
			: out->verdict == ASTRA_VERDICT_NO_FASTER ? ASTRA_STAT_HITS_NONE
			: ASTRA_STAT_HITS_FAILED);
	astra_trace(ASTRA_TRACE_CACHE, "hit %s sm_%d: %s (%s)", key, cc, astra_verdict_name(out->verdict),
		    out->kernel);
	r = 1;
out:
	free(name);
	astra_buf_release(&b);
	return r;
}

int astra_cache_peek(struct astra_cache *c, const char *key, int cc, struct astra_entry *out,
		     struct astra_json **manifest_out, struct astra_storage_stat *st, const char **why)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	char *name;
	int r;

	astra_entry_init(out);
	if (manifest_out)
		*manifest_out = NULL;
	if (!astra_key_ok(key) || cc <= 0)
		return *why = "invalid key", -1;
	name = astra_cache_entry_name(key, cc);
	r = c->local->ops->get(c->local, name, &b, st);
	if (r < 0)
		*why = strerror(errno);
	else if (r > 0 && astra_entry_decode(b.buf, b.len, key, cc, out, manifest_out, why) != ASTRA_DECODE_OK)
		r = -1;
	free(name);
	astra_buf_release(&b);
	return r;
}

static void count_verdict(enum astra_verdict v)
{
	switch (v) {
	case ASTRA_VERDICT_FASTER: astra_stats_inc(ASTRA_STAT_VERDICT_FASTER); break;
	case ASTRA_VERDICT_NO_FASTER: astra_stats_inc(ASTRA_STAT_VERDICT_NONE); break;
	case ASTRA_VERDICT_FAILED: astra_stats_inc(ASTRA_STAT_VERDICT_FAILED); break;
	case ASTRA_VERDICT_NONE: break;
	}
}

static void maybe_cleanup(struct astra_cache *c)
{
	struct astra_cleanup_result r;
	long long bytes, entries;
	if (c->max_size <= 0 || astra_cache_usage(c, &bytes, &entries) < 0 || bytes <= c->max_size)
		return;
	astra_trace(ASTRA_TRACE_CACHE, "cache is %lld bytes, over its limit of %lld: cleaning up", bytes,
		    c->max_size);
	astra_cache_cleanup(c, c->max_size, 0, 0, &r);
}

int astra_cache_store(struct astra_cache *c, struct astra_entry *e, const char *transcript,
		      size_t transcript_len)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *why;
	char *name = NULL, *tname = NULL;
	char sum[25];
	int ret = -1;

	if (!e->created)
		e->created = astra_time();
	free(e->transcript_checksum);
	e->transcript_checksum = NULL;
	e->transcript_len = -1;
	if (!astra_key_ok(e->key) || e->cc <= 0)
		return error("cannot store a cache entry: invalid key or architecture");
	name = astra_cache_entry_name(e->key, e->cc);
	tname = astra_cache_transcript_name(e->key, e->cc);

	/*
	 * The transcript goes first, so that an entry never refers to a
	 * transcript that is not there yet.  It is evidence, not proof: if it
	 * cannot be written the entry is stored without it.
	 */
	if (transcript) {
		if (c->local->ops->put(c->local, tname, transcript, transcript_len) == 0) {
			astra_checksum(transcript, transcript_len, sum);
			e->transcript_checksum = xstrdup(sum);
			e->transcript_len = (long long)transcript_len;
		} else {
			storage_failed(c, "write", tname, errno);
		}
	} else if (c->local->ops->remove(c->local, tname) < 0) {
		astra_trace(ASTRA_TRACE_CACHE, "cannot remove %s: %s", tname, strerror(errno));
	}

	if (astra_entry_encode(e, &b, &why) < 0) {
		error("cannot store the cache entry for %s (%s): %s", e->kernel ? e->kernel : "?", e->key, why);
		goto out;
	}
	if (c->local->ops->put(c->local, name, b.buf, b.len) < 0) {
		storage_failed(c, "write", name, errno);
		goto out;
	}
	count_verdict(e->verdict);
	astra_trace(ASTRA_TRACE_CACHE, "stored %s sm_%d: %s (%s, %zu bytes)", e->key, e->cc,
		    astra_verdict_name(e->verdict), e->kernel, b.len);
	ret = 0;
	maybe_cleanup(c);
out:
	free(name);
	free(tname);
	astra_buf_release(&b);
	return ret;
}

int astra_cache_transcript(struct astra_cache *c, const char *key, int cc, struct astra_buf *out)
{
	struct astra_entry e;
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *why;
	char *tname, sum[25];
	int r;

	r = astra_cache_peek(c, key, cc, &e, NULL, NULL, &why);
	if (r <= 0)
		return r;
	if (!e.transcript_checksum) {
		astra_entry_release(&e);
		return 0;
	}
	tname = astra_cache_transcript_name(key, cc);
	r = c->local->ops->get(c->local, tname, &b, NULL);
	if (r > 0) {
		astra_checksum(b.buf, b.len, sum);
		if ((long long)b.len != e.transcript_len || strcmp(sum, e.transcript_checksum))
			r = -1;
		else
			astra_buf_add(out, b.buf, b.len);
	}
	free(tname);
	astra_buf_release(&b);
	astra_entry_release(&e);
	return r;
}

int astra_cache_remove(struct astra_cache *c, const char *key, int cc)
{
	char *name = astra_cache_entry_name(key, cc);
	char *tname = astra_cache_transcript_name(key, cc);
	int r = c->local->ops->remove(c->local, name);
	if (c->local->ops->remove(c->local, tname) < 0)
		r = -1;
	free(name);
	free(tname);
	return r;
}
