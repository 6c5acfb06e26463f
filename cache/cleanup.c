/*
 * cleanup.c - size accounting, LRU and age eviction, clearing, sweeping
 * (see cleanup.h).
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/cleanup.h"
#include "cache/names.h"
#include "cache/stats.h"
#include "lib/log.h"

struct object {
	char *name;
	char key[33];
	int cc;
	int kind;            /* enum astra_object_kind; -1 once removed */
	long long size, mtime;
	struct object *transcript; /* for an entry: its transcript, if any */
	struct object *sig;  /* for an entry: its signature, if any */
	int has_entry;       /* for a transcript or a signature */
};

struct objects {
	struct object *v;
	size_t nr, alloc;
};

static int collect(const char *name, const struct astra_storage_stat *st, void *data)
{
	struct objects *o = data;
	struct object *ob;
	ALLOC_GROW(o->v, o->nr + 1, o->alloc);
	ob = &o->v[o->nr++];
	memset(ob, 0, sizeof(*ob));
	ob->name = xstrdup(name);
	ob->kind = astra_cache_parse_name(name, ob->key, &ob->cc);
	ob->size = st->size;
	ob->mtime = st->mtime;
	return 0;
}

static void objects_release(struct objects *o)
{
	size_t i;
	for (i = 0; i < o->nr; i++)
		free(o->v[i].name);
	free(o->v);
	memset(o, 0, sizeof(*o));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct object *)a)->name, ((const struct object *)b)->name);
}

/*
 * Queue items, device ceilings and captured launches are not cache
 * contents: never counted, evicted or cleared (a capture needs a run of
 * the user's program to make again).
 */
static int kept(const struct object *ob)
{
	return ob->kind == ASTRA_OBJ_QUEUE || ob->kind == ASTRA_OBJ_DEVICE || ob->kind == ASTRA_OBJ_CAPTURE;
}

static int list_all(struct astra_storage *s, struct objects *o)
{
	size_t i;
	memset(o, 0, sizeof(*o));
	if (s->ops->list(s, "", collect, o) < 0)
		return -1;
	/*
	 * Pair entries with their transcripts and signatures: "<k>-<cc>.entry"
	 * sorts before "<k>-<cc>.sig" and "<k>-<cc>.transcript".
	 */
	if (o->nr)
		qsort(o->v, o->nr, sizeof(*o->v), by_name);
	for (i = 0; i < o->nr; i++) {
		struct object *t = &o->v[i];
		size_t j;
		if (t->kind != ASTRA_OBJ_TRANSCRIPT && t->kind != ASTRA_OBJ_SIG)
			continue;
		for (j = i; j-- > 0;) {
			struct object *e = &o->v[j];
			if (strncmp(e->name, t->name, 32))
				break;
			if (e->kind == ASTRA_OBJ_ENTRY && e->cc == t->cc) {
				if (t->kind == ASTRA_OBJ_SIG)
					e->sig = t;
				else
					e->transcript = t;
				t->has_entry = 1;
				break;
			}
		}
	}
	return 0;
}

int astra_cache_usage(struct astra_storage *s, long long *bytes, long long *entries)
{
	struct objects o;
	size_t i;
	*bytes = *entries = 0;
	if (list_all(s, &o) < 0)
		return -1;
	for (i = 0; i < o.nr; i++) {
		if (kept(&o.v[i]))
			continue;
		*bytes += o.v[i].size;
		*entries += o.v[i].kind == ASTRA_OBJ_ENTRY;
	}
	objects_release(&o);
	return 0;
}

/* Take the cleanup lock: 1 held, 0 busy (another process is cleaning), -1 error. */
static int cleanup_lock(struct astra_storage *s, int wait, struct astra_file_lock *lk)
{
	return astra_storage_file_lock(s, "cleanup.lock", wait ? -1 : 0, lk);
}

static int by_mtime(const void *a, const void *b)
{
	const struct object *x = *(struct object *const *)a, *y = *(struct object *const *)b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void remove_object(struct astra_storage *s, struct object *ob, struct astra_cleanup_result *r,
			  long long *total)
{
	if (s->ops->remove(s, ob->name) < 0) {
		astra_trace(ASTRA_TRACE_CACHE, "cannot remove %s: %s", ob->name, strerror(errno));
		return;
	}
	r->removed_bytes += ob->size;
	*total -= ob->size;
	ob->kind = -1; /* gone */
}

static void evict(struct astra_storage *s, struct object *e, struct astra_cleanup_result *r, long long *total)
{
	remove_object(s, e, r, total);
	if (e->kind != -1)
		return;
	r->removed_entries++;
	astra_stats_inc(ASTRA_STAT_EVICTED);
	if (e->transcript)
		remove_object(s, e->transcript, r, total);
	if (e->sig)
		remove_object(s, e->sig, r, total);
}

/* A transcript or signature whose entry is gone. */
static int orphan(const struct object *ob)
{
	return (ob->kind == ASTRA_OBJ_TRANSCRIPT || ob->kind == ASTRA_OBJ_SIG) && !ob->has_entry;
}

int astra_cache_cleanup(struct astra_storage *s, long long max_size, long long unused_since, int wait,
			struct astra_cleanup_result *r)
{
	struct astra_file_lock lock = ASTRA_FILE_LOCK_INIT;
	struct objects o;
	struct object **entries = NULL;
	size_t i, nr = 0;
	long long total = 0, now = astra_time();
	int got;

	memset(r, 0, sizeof(*r));
	if (!astra_storage_file_present(s))
		return 0;
	got = cleanup_lock(s, wait, &lock);
	if (got == 0)
		return 1;
	if (got < 0)
		return -1;
	astra_stats_inc(ASTRA_STAT_CLEANUPS);
	if (s->ops->sweep)
		s->ops->sweep(s, now - ASTRA_CLEANUP_TEMP_AGE, &r->swept);
	if (list_all(s, &o) < 0) {
		astra_storage_file_unlock(&lock, 0);
		return -1;
	}
	entries = xmalloc((o.nr + 1) * sizeof(*entries));
	for (i = 0; i < o.nr; i++) {
		struct object *ob = &o.v[i];
		if (kept(ob))
			continue;
		total += ob->size;
		if (ob->kind == ASTRA_OBJ_ENTRY)
			entries[nr++] = ob;
	}
	/* Transcripts and signatures without an entry (older than a store in progress could be). */
	for (i = 0; i < o.nr; i++) {
		struct object *ob = &o.v[i];
		if (orphan(ob) &&
		    ob->mtime / 1000000000LL < now - ASTRA_CLEANUP_TEMP_AGE) {
			long long before = r->removed_bytes;
			remove_object(s, ob, r, &total);
			r->removed_bytes = before;
			r->swept += ob->kind == -1;
		}
	}
	if (nr)
		qsort(entries, nr, sizeof(*entries), by_mtime);
	if (unused_since > 0)
		for (i = 0; i < nr && entries[i]->mtime / 1000000000LL < unused_since; i++)
			evict(s, entries[i], r, &total);
	if (max_size > 0 && total > max_size) {
		long long target = max_size / 10 * 9;
		for (i = 0; i < nr && total > target; i++)
			if (entries[i]->kind == ASTRA_OBJ_ENTRY)
				evict(s, entries[i], r, &total);
	}
	for (i = 0; i < nr; i++)
		r->entries += entries[i]->kind == ASTRA_OBJ_ENTRY;
	r->bytes = total;
	astra_trace(ASTRA_TRACE_CACHE, "cleanup: removed %lld entries (%lld bytes), swept %lld files; %lld entries, %lld bytes left",
		    r->removed_entries, r->removed_bytes, r->swept, r->entries, r->bytes);
	free(entries);
	objects_release(&o);
	astra_storage_file_unlock(&lock, 0);
	return 0;
}

int astra_cache_clear(struct astra_storage *s, struct astra_cleanup_result *r)
{
	struct astra_file_lock lock = ASTRA_FILE_LOCK_INIT;
	struct objects o;
	long long total = 0;
	size_t i;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (!astra_storage_file_present(s))
		return 0;
	if (cleanup_lock(s, 1, &lock) <= 0)
		return -1;
	if (s->ops->sweep)
		s->ops->sweep(s, astra_time() + 1, &r->swept);
	if (list_all(s, &o) < 0) {
		astra_storage_file_unlock(&lock, 0);
		return -1;
	}
	for (i = 0; i < o.nr; i++)
		if (!kept(&o.v[i]))
			total += o.v[i].size;
	for (i = 0; i < o.nr; i++) {
		struct object *ob = &o.v[i];
		if (ob->kind == ASTRA_OBJ_ENTRY)
			evict(s, ob, r, &total);
		else if (orphan(ob))
			remove_object(s, ob, r, &total);
		else if (ob->kind == ASTRA_OBJ_OTHER)
			remove_object(s, ob, r, &total);
	}
	for (i = 0; i < o.nr; i++)
		if (o.v[i].kind != -1 && !kept(&o.v[i]))
			ret = -1;
	r->bytes = total;
	astra_storage_file_tidy(s);
	objects_release(&o);
	astra_storage_file_unlock(&lock, 0);
	return ret;
}
