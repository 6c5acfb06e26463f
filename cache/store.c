/*
 * store.c - lookups and stores of verified variants (see store.h).
 *
 * This is the policy layer over the storage tiers: it names objects,
 * checks every entry it reads (manifest.c), decides what a failure means
 * (always: a miss, logged and counted), records uses for LRU, and triggers
 * cleanup when a store takes the cache over its limit.
 *
 * Tiers: the local directory first, then the `remote_storage` tiers in
 * order (as ccache 4's remote storage).  A lookup that misses locally asks
 * each remote tier; a remote hit passes the same checks as a local one and
 * is copied into the local tier.  A store writes the local tier, then
 * every remote tier not marked read-only.  A remote tier that fails (not
 * "absent": an error) is skipped for the rest of the process, so a tier
 * that is down costs a build at most one failure.  Removing, cleaning and
 * listing are local chores: they never touch a remote tier.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/config.h"
#include "lib/hash.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/trust.h"
#include "cache/cleanup.h"
#include "cache/fsio.h"
#include "cache/sign.h"
#include "cache/stats.h"
#include "cache/store.h"

struct tier {
	struct astra_storage *s;
	int read_only;
	int broken;           /* failed once in this process, or marked down: skipped */
	int down_checked;     /* the local tier's mark was looked at (tier_usable) */
};

struct astra_cache {
	char *dir;
	struct astra_storage *local;
	struct tier *remote;
	size_t nr_remote, alloc_remote;
	long long max_size;
	/* During astra_cache_lookup_checked: the caller's check. */
	int (*check)(const struct astra_entry *e, void *ctx, struct astra_buf *why);
	void *check_ctx;
};

int astra_cache_add_tier(struct astra_cache *c, const char *spec)
{
	size_t n = strcspn(spec, "|");
	const char *attrs = spec + n;
	char *url = xstrndup(spec, n);
	struct astra_storage *s = NULL;
	int read_only = 0;
	int http = astra_starts_with(url, "http://") || astra_starts_with(url, "https://");

	while (*attrs == '|') {
		size_t k;
		attrs++;
		k = strcspn(attrs, "|");
		if (k == 9 && !strncmp(attrs, "read-only", 9)) {
			read_only = 1;
		} else if (!http) { /* the HTTP tier reads its own (timeouts) */
			/*
			 * A misspelt attribute (`|readonly`) must not leave a
			 * tier writable that was meant read-only: the tier is
			 * not used at all.
			 */
			warning("remote_storage %s: unknown attribute '%.*s': tier not used (read-only is the only one a "
				"file: tier takes)", url, (int)k, attrs);
			free(url);
			return -1;
		}
		attrs += k;
	}
	if (astra_starts_with(url, "file://"))
		s = astra_storage_file_open(url + 7);
	else if (astra_starts_with(url, "file:"))
		s = astra_storage_file_open(url + 5);
	else if (http)
		s = astra_storage_http_open(url, spec + n);
	if (!s || !*s->url || (!http && s->url[0] != '/')) {
		/* The HTTP tier said why it refused a URL (one with credentials is not echoed). */
		if (!http || s)
			warning("remote_storage: %s is not a tier astra-cc can use (file:/absolute/dir, http://host/path/)",
				url);
		if (s)
			s->ops->close(s);
		free(url);
		return -1;
	}
	free(url);
	ALLOC_GROW(c->remote, c->nr_remote + 1, c->alloc_remote);
	c->remote[c->nr_remote].s = s;
	c->remote[c->nr_remote].read_only = read_only;
	c->remote[c->nr_remote].broken = 0;
	c->remote[c->nr_remote].down_checked = 0;
	c->nr_remote++;
	return 0;
}

struct astra_cache *astra_cache_open(const char *dir)
{
	struct astra_cache *c = xcalloc(1, sizeof(*c));
	const char *tiers = astra_config_str(ASTRA_CFG_REMOTE_STORAGE);
	if (!dir)
		dir = astra_config_str(ASTRA_CFG_DIR);
	c->local = astra_storage_file_open(dir);
	c->dir = xstrdup(c->local->url);
	c->max_size = astra_config_int(ASTRA_CFG_MAX_SIZE);
	/* Space-separated tier specifications, tried in order after the local one. */
	while (tiers && *tiers) {
		size_t n = strcspn(tiers, " \t");
		if (n) {
			char *spec = xstrndup(tiers, n);
			astra_cache_add_tier(c, spec);
			free(spec);
		}
		tiers += n;
		tiers += strspn(tiers, " \t");
	}
	return c;
}

void astra_cache_close(struct astra_cache *c)
{
	size_t i;
	if (!c)
		return;
	c->local->ops->close(c->local);
	for (i = 0; i < c->nr_remote; i++)
		c->remote[i].s->ops->close(c->remote[i].s);
	free(c->remote);
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

/* Log and count a storage failure; the operation becomes a miss. */
static void storage_failed(struct astra_storage *s, const char *what, const char *name, int err)
{
	char *where = s->ops->where(s, name);
	warning("cache %s: cannot %s %s: %s", s->url, what, where, strerror(err));
	free(where);
	astra_fsio_count(err);
}

/*
 * A remote tier that timed out or refused the connection is marked down
 * for remote_down_time seconds, in a file of the local tier that every
 * compile of the build sees (a hung server would otherwise cost each
 * compile its whole timeout): "remote-down-<XXH3-64 of the tier's URL>",
 * holding the URL and the reason; its mtime is when.
 */
static char *down_name(const struct tier *t)
{
	return xasprintf("remote-down-%016llx", astra_hash64(t->s->url, strlen(t->s->url)));
}

static void mark_down(struct astra_cache *c, struct tier *t, int err)
{
	long long window = astra_config_int(ASTRA_CFG_REMOTE_DOWN_TIME);
	struct astra_buf b = ASTRA_BUF_INIT;
	char *name;
	if (window <= 0 || (err != ETIMEDOUT && err != ECONNREFUSED))
		return;
	name = down_name(t);
	astra_buf_addf(&b, "%s\n%s\n", t->s->url, strerror(err));
	if (c->local->ops->put(c->local, name, b.buf, b.len) == 0)
		warning("cache %s: marked down for %lld s (%s): the compiles using %s skip it until then "
			"(remote_down_time)", t->s->url, window, strerror(err), c->dir);
	else
		astra_trace(ASTRA_TRACE_CACHE, "cannot mark %s down in %s: %s", t->s->url, c->dir, strerror(errno));
	astra_buf_release(&b);
	free(name);
}

/* The trust rule alone: no count, no log (for inspection: --list, --show-entry). */
static int trusted_quietly(const struct astra_storage_stat *st);

/*
 * May the remote tier t be asked?  Not when it failed in this process,
 * nor while another compile's mark says it is down (logged and counted
 * once per process).
 */
static int tier_usable(struct astra_cache *c, struct tier *t)
{
	long long window, age;
	struct astra_storage_stat st;
	struct astra_buf b = ASTRA_BUF_INIT;
	char *name;
	if (t->broken)
		return 0;
	if (t->down_checked)
		return 1;
	t->down_checked = 1;
	window = astra_config_int(ASTRA_CFG_REMOTE_DOWN_TIME);
	if (window <= 0)
		return 1;
	name = down_name(t);
	memset(&st, 0, sizeof(st));
	/* A mark is only ever a reason to skip; one nobody trusted wrote is ignored all the same. */
	if (c->local->ops->get(c->local, name, &b, &st) > 0 && trusted_quietly(&st)) {
		age = astra_time() - st.mtime / 1000000000LL;
		if (age >= 0 && age < window) {
			size_t n = strcspn(b.buf, "\n");
			const char *reason = b.buf[n] ? b.buf + n + 1 : "";
			astra_buf_rtrim(&b);
			warning("cache %s: skipped: marked down %lld s ago (%s); tried again in %lld s (remote_down_time)",
				t->s->url, age, *reason ? reason : "no reason given", window - age);
			astra_stats_inc(ASTRA_STAT_REMOTE_DOWN);
			t->broken = 1;
		}
	}
	astra_buf_release(&b);
	free(name);
	return !t->broken;
}

/* A remote tier failed: say so once, skip it for the rest of the process, and mark it down when it hangs or refuses. */
static void tier_failed(struct astra_cache *c, struct tier *t, const char *what, const char *name, int err)
{
	storage_failed(t->s, what, name, err);
	astra_stats_inc(ASTRA_STAT_REMOTE_ERRORS);
	t->broken = 1;
	mark_down(c, t, err);
}

/* The trust rule alone: no count, no log (for inspection: --list, --show-entry). */
static int trusted_quietly(const struct astra_storage_stat *st)
{
	return st->has_owner ? astra_trust_content((uid_t)st->uid, (gid_t)st->gid, (mode_t)st->mode, NULL)
			     : astra_trust_unowned("", NULL);
}

int astra_cache_trusted(struct astra_storage *s, const char *name, const struct astra_storage_stat *st)
{
	static int said;
	struct astra_buf why = ASTRA_BUF_INIT;
	int ok = st->has_owner ? astra_trust_content((uid_t)st->uid, (gid_t)st->gid, (mode_t)st->mode, &why)
			       : astra_trust_unowned(name, &why);
	if (ok) {
		astra_buf_release(&why);
		return 1;
	}
	astra_stats_inc(ASTRA_STAT_UNTRUSTED);
	if (!said) {
		char *where = s->ops->where(s, name);
		said = 1;
		warning("cache %s: not using %s: %s; files nobody you trust wrote are misses (said once; see "
			"\"Sharing a cache\" in doc/cache.md)", s->url, where, why.buf);
		free(where);
	} else {
		astra_trace(ASTRA_TRACE_CACHE, "not using %s: %s", name, why.buf);
	}
	astra_buf_release(&why);
	return 0;
}

/*
 * The caller's check (astra_cache_lookup_checked) of entry e, read as
 * name from tier s.  Returns 1 when e fails it: then it is a corrupt
 * entry (logged with its full name, counted, removed when remove_corrupt).
 */
static int failed_check(struct astra_cache *c, struct astra_storage *s, const char *name,
			const struct astra_entry *e, int remove_corrupt)
{
	struct astra_buf why = ASTRA_BUF_INIT, one = ASTRA_BUF_INIT;
	char *where;
	size_t i;
	if (c->check(e, c->check_ctx, &why) == 0) {
		astra_buf_release(&why);
		return 0;
	}
	astra_buf_rtrim(&why);
	/* The reasons, one a line, on one line. */
	for (i = 0; i < why.len; i++) {
		if (why.buf[i] == '\n')
			astra_buf_adds(&one, "; ");
		else
			astra_buf_addch(&one, why.buf[i]);
	}
	astra_buf_release(&why);
	why = one;
	where = s->ops->where(s, name);
	warning("cache entry %s (kernel %s) fails the candidate check (%s); %s", where,
		e->kernel ? e->kernel : "?", why.len ? why.buf : "no reason given",
		remove_corrupt ? "removed, treated as a miss" : "not copied, treated as a miss");
	astra_stats_inc(ASTRA_STAT_CORRUPT_ENTRIES);
	if (remove_corrupt && s->ops->remove(s, name) < 0)
		astra_trace(ASTRA_TRACE_CACHE, "cannot remove %s: %s", where, strerror(errno));
	free(where);
	astra_buf_release(&why);
	return 1;
}

/*
 * Read and check the entry (key, cc) from tier s.  Returns 1 (out filled),
 * 0 (absent, or unusable: *why says why), -1 (the tier failed; errno).
 * remove_corrupt: a corrupt entry is removed from s (the local tier only:
 * a reader never deletes from a shared tier).  With require_signature the
 * entry's signature on s must verify too (cache/sign.h); sig receives it.
 */
static int read_entry(struct astra_cache *c, struct astra_storage *s, const char *name, const char *key, int cc,
		      struct astra_entry *out, struct astra_buf *raw, int remove_corrupt, const char **why,
		      struct astra_buf *sig)
{
	struct astra_storage_stat st;
	char *where = NULL;
	int r;
	memset(&st, 0, sizeof(st));
	r = s->ops->get(s, name, raw, &st);
	if (r <= 0) {
		*why = r < 0 ? "unreadable" : "no entry";
		return r;
	}
	if (!astra_cache_trusted(s, name, &st)) {
		*why = "written by someone you do not trust";
		return 0;
	}
	switch (astra_entry_decode(raw->buf, raw->len, key, cc, out, NULL, why)) {
	case ASTRA_DECODE_OK:
		if (!astra_sign_verify_stored(s, name, raw->buf, raw->len, sig)) {
			*why = "not signed with the signing key";
			break;
		}
		if (c->check && failed_check(c, s, name, out, remove_corrupt)) {
			*why = "fails the candidate check";
			break;
		}
		return 1;
	case ASTRA_DECODE_UNKNOWN:
		/*
		 * Perhaps a newer astra-cc shares this directory: leave the
		 * file for it; our next store replaces it.
		 */
		where = s->ops->where(s, name);
		warning("cache entry %s: %s; treated as a miss", where, *why);
		astra_stats_inc(ASTRA_STAT_UNKNOWN_FORMAT);
		break;
	case ASTRA_DECODE_CORRUPT:
		/*
		 * Removing it lets the next optimization replace it.  If a
		 * writer renamed a good entry over it since we read it, this
		 * removes the good one: that costs one re-optimization, never
		 * a wrong substitution, so it is not worth a compare-and-delete.
		 */
		where = s->ops->where(s, name);
		warning("cache entry %s is corrupt: %s; %streated as a miss", where, *why,
			remove_corrupt ? "removed, " : "");
		astra_stats_inc(ASTRA_STAT_CORRUPT_ENTRIES);
		if (remove_corrupt && s->ops->remove(s, name) < 0)
			astra_trace(ASTRA_TRACE_CACHE, "cannot remove %s: %s", name, strerror(errno));
		break;
	}
	free(where);
	astra_entry_release(out);
	astra_entry_init(out);
	return 0;
}

static void miss(const char *key, int cc, const char *why)
{
	astra_trace(ASTRA_TRACE_CACHE, "miss %s sm_%d: %s", key ? key : "(no key)", cc, why);
	astra_stats_inc(ASTRA_STAT_MISSES);
}

int astra_cache_lookup(struct astra_cache *c, const char *key, int cc, struct astra_entry *out)
{
	struct astra_buf b = ASTRA_BUF_INIT, sig = ASTRA_BUF_INIT;
	const char *why = NULL;
	const char *from = "local";
	char *name;
	size_t i;
	int r;

	astra_entry_init(out);
	if (!astra_key_ok(key) || cc <= 0) {
		/* A caller bug, but still only a miss for the build. */
		warning("cache lookup with an invalid key or architecture (%s, %d)", key ? key : "(null)", cc);
		miss(key, cc, "invalid key");
		return 0;
	}
	name = astra_cache_entry_name(key, cc);
	r = read_entry(c, c->local, name, key, cc, out, &b, 1, &why, NULL);
	if (r < 0)
		storage_failed(c->local, "read", name, errno);
	if (r == 1) {
		/* Record the use for LRU; a read-only cache simply does not. */
		if (c->local->ops->touch(c->local, name) < 0)
			astra_trace(ASTRA_TRACE_CACHE, "cannot record the use of %s: %s", name, strerror(errno));
	}
	/* A local miss asks the remote tiers in order. */
	for (i = 0; r != 1 && i < c->nr_remote; i++) {
		struct tier *t = &c->remote[i];
		int rr;
		if (!tier_usable(c, t))
			continue;
		astra_buf_reset(&b);
		rr = read_entry(c, t->s, name, key, cc, out, &b, 0, &why, &sig);
		if (rr < 0) {
			tier_failed(c, t, "read", name, errno);
			continue;
		}
		if (rr == 1) {
			/* Copied into the local tier (with its transcript): the next lookup stays local. */
			struct astra_buf tb = ASTRA_BUF_INIT;
			char *tname = astra_cache_transcript_name(key, cc);
			struct astra_storage_stat tst;
			memset(&tst, 0, sizeof(tst));
			if (out->transcript_checksum && t->s->ops->get(t->s, tname, &tb, &tst) > 0 &&
			    astra_cache_trusted(t->s, tname, &tst))
				c->local->ops->put(c->local, tname, tb.buf, tb.len);
			/* The signature before the entry: a local reader never sees the entry without it. */
			if (sig.len && astra_sign_store(c->local, name, b.buf, b.len, &sig) < 0)
				astra_trace(ASTRA_TRACE_CACHE, "cannot copy the signature of %s: %s", name, strerror(errno));
			if (c->local->ops->put(c->local, name, b.buf, b.len) < 0) {
				char *where = t->s->ops->where(t->s, name);
				astra_trace(ASTRA_TRACE_CACHE, "cannot copy %s: %s", where, strerror(errno));
				free(where);
			}
			astra_buf_release(&tb);
			free(tname);
			from = t->s->url;
			astra_stats_inc(ASTRA_STAT_REMOTE_HITS);
			r = 1;
		}
	}
	if (r != 1) {
		miss(key, cc, why ? why : "no entry");
		r = 0;
		goto out;
	}
	astra_stats_inc(ASTRA_STAT_HITS);
	astra_stats_inc(out->verdict == ASTRA_VERDICT_FASTER ? ASTRA_STAT_HITS_FASTER
			: out->verdict == ASTRA_VERDICT_NO_FASTER ? ASTRA_STAT_HITS_NONE
			: ASTRA_STAT_HITS_FAILED);
	astra_trace(ASTRA_TRACE_CACHE, "hit %s sm_%d: %s (%s) from %s", key, cc, astra_verdict_name(out->verdict),
		    out->kernel, from);
out:
	free(name);
	astra_buf_release(&b);
	astra_buf_release(&sig);
	return r;
}

int astra_cache_lookup_checked(struct astra_cache *c, const char *key, int cc, struct astra_entry *out,
			       int (*check)(const struct astra_entry *e, void *ctx, struct astra_buf *why), void *ctx)
{
	int r;
	c->check = check;
	c->check_ctx = ctx;
	r = astra_cache_lookup(c, key, cc, out);
	c->check = NULL;
	c->check_ctx = NULL;
	return r;
}

int astra_cache_peek(struct astra_cache *c, const char *key, int cc, struct astra_entry *out,
		     struct astra_json **manifest_out, struct astra_storage_stat *st, const char **why)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	char *name;
	size_t i;
	int r;

	astra_entry_init(out);
	if (manifest_out)
		*manifest_out = NULL;
	if (!astra_key_ok(key) || cc <= 0)
		return *why = "invalid key", -1;
	name = astra_cache_entry_name(key, cc);
	{
		struct astra_storage_stat own;
		if (!st)
			st = &own;
		memset(st, 0, sizeof(*st));
		r = c->local->ops->get(c->local, name, &b, st);
		for (i = 0; r == 0 && i < c->nr_remote; i++)
			if (!c->remote[i].broken)
				r = c->remote[i].s->ops->get(c->remote[i].s, name, &b, st);
		if (r < 0)
			*why = strerror(errno);
		else if (r > 0 && !trusted_quietly(st))
			*why = "written by someone you do not trust", r = -1;
		else if (r > 0 && astra_entry_decode(b.buf, b.len, key, cc, out, manifest_out, why) != ASTRA_DECODE_OK)
			r = -1;
	}
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
	if (c->max_size <= 0 || astra_cache_usage(c->local, &bytes, &entries) < 0 || bytes <= c->max_size)
		return;
	astra_trace(ASTRA_TRACE_CACHE, "cache is %lld bytes, over its limit of %lld: cleaning up", bytes,
		    c->max_size);
	astra_cache_cleanup(c->local, c->max_size, 0, 0, &r);
}

int astra_cache_store(struct astra_cache *c, struct astra_entry *e, const char *transcript,
		      size_t transcript_len)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *why;
	char *name = NULL, *tname = NULL;
	char sum[25];
	size_t i;
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
			storage_failed(c->local, "write", tname, errno);
		}
	} else if (c->local->ops->remove(c->local, tname) < 0) {
		astra_trace(ASTRA_TRACE_CACHE, "cannot remove %s: %s", tname, strerror(errno));
	}

	if (astra_entry_encode(e, &b, &why) < 0) {
		error("cannot store the cache entry for %s (%s): %s", e->kernel ? e->kernel : "?", e->key, why);
		goto out;
	}
	if (c->local->ops->put(c->local, name, b.buf, b.len) < 0)
		storage_failed(c->local, "write", name, errno);
	else if (astra_sign_store(c->local, name, b.buf, b.len, NULL) < 0)
		storage_failed(c->local, "sign", name, errno);
	else
		ret = 0;
	/* Then every writable remote tier, the transcript first as above. */
	for (i = 0; i < c->nr_remote; i++) {
		struct tier *t = &c->remote[i];
		if (t->read_only || !tier_usable(c, t))
			continue;
		if (transcript && e->transcript_checksum &&
		    t->s->ops->put(t->s, tname, transcript, transcript_len) < 0) {
			tier_failed(c, t, "write", tname, errno);
			continue;
		}
		if (t->s->ops->put(t->s, name, b.buf, b.len) < 0)
			tier_failed(c, t, "write", name, errno);
		else if (astra_sign_store(t->s, name, b.buf, b.len, NULL) < 0)
			tier_failed(c, t, "sign", name, errno);
		else
			ret = 0;
	}
	if (ret < 0)
		goto out;
	count_verdict(e->verdict);
	astra_trace(ASTRA_TRACE_CACHE, "stored %s sm_%d: %s (%s, %zu bytes)", e->key, e->cc,
		    astra_verdict_name(e->verdict), e->kernel, b.len);
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
	size_t i;
	int r;

	r = astra_cache_peek(c, key, cc, &e, NULL, NULL, &why);
	if (r <= 0)
		return r;
	if (!e.transcript_checksum) {
		astra_entry_release(&e);
		return 0;
	}
	tname = astra_cache_transcript_name(key, cc);
	{
		struct astra_storage_stat st;
		memset(&st, 0, sizeof(st));
		r = c->local->ops->get(c->local, tname, &b, &st);
		for (i = 0; r == 0 && i < c->nr_remote; i++)
			if (!c->remote[i].broken)
				r = c->remote[i].s->ops->get(c->remote[i].s, tname, &b, &st);
		if (r > 0 && !trusted_quietly(&st))
			r = -1;
	}
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
	char *sname = astra_sign_name(name);
	int r = c->local->ops->remove(c->local, name);
	if (c->local->ops->remove(c->local, tname) < 0)
		r = -1;
	if (c->local->ops->remove(c->local, sname) < 0)
		r = -1;
	free(name);
	free(tname);
	free(sname);
	return r;
}
