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

#include "astra-cc/log.h"
#include "cache/cleanup.h"
#include "cache/stats.h"

struct object {
	char *name;
	char key[33];
	int cc;
	int kind;            /* 1 entry, 2 transcript, 0 other */
	long long size, mtime;
	struct object *transcript; /* for an entry: its transcript, if any */
	int has_entry;       /* for a transcript */
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

static int list_all(struct astra_cache *c, struct objects *o)
{
	struct astra_storage *s = astra_cache_local(c);
	size_t i;
	memset(o, 0, sizeof(*o));
	if (s->ops->list(s, "", collect, o) < 0)
		return -1;
	/* Pair entries with transcripts: "<k>-<cc>.entry" sorts before "<k>-<cc>.transcript". */
	if (o->nr)
		qsort(o->v, o->nr, sizeof(*o->v), by_name);
	for (i = 0; i < o->nr; i++) {
		struct object *t = &o->v[i];
		size_t j;
		if (t->kind != 2)
			continue;
		for (j = i; j-- > 0;) {
			struct object *e = &o->v[j];
			if (strncmp(e->name, t->name, 32))
				break;
			if (e->kind == 1 && e->cc == t->cc) {
				e->transcript = t;
				t->has_entry = 1;
				break;
			}
		}
	}
	return 0;
}

int astra_cache_usage(struct astra_cache *c, long long *bytes, long long *entries)
{
	struct objects o;
	size_t i;
	*bytes = *entries = 0;
	if (list_all(c, &o) < 0)
		return -1;
	for (i = 0; i < o.nr; i++) {
		*bytes += o.v[i].size;
		*entries += o.v[i].kind == 1;
	}
	objects_release(&o);
	return 0;
}

/* Take <dir>/cleanup.lock; returns the fd, -1 on error, -2 when busy. */
static int cleanup_lock(struct astra_cache *c, int wait)
{
	char *path = xasprintf("%s/cleanup.lock", astra_cache_dir(c));
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	free(path);
	if (fd < 0)
		return -1;
	if (flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) < 0) {
		int busy = errno == EWOULDBLOCK;
		close(fd);
		return busy ? -2 : -1;
	}
	return fd;
}

static int by_mtime(const void *a, const void *b)
{
	const struct object *x = *(struct object *const *)a, *y = *(struct object *const *)b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void remove_object(struct astra_cache *c, struct object *ob, struct astra_cleanup_result *r,
			  long long *total)
{
	struct astra_storage *s = astra_cache_local(c);
	if (s->ops->remove(s, ob->name) < 0) {
		astra_trace(ASTRA_TRACE_CACHE, "cannot remove %s: %s", ob->name, strerror(errno));
		return;
	}
	r->removed_bytes += ob->size;
	*total -= ob->size;
	ob->kind = -1; /* gone */
}

static void evict(struct astra_cache *c, struct object *e, struct astra_cleanup_result *r, long long *total)
{
	remove_object(c, e, r, total);
	if (e->kind != -1)
		return;
	r->removed_entries++;
	astra_stats_inc(ASTRA_STAT_EVICTED);
	if (e->transcript)
		remove_object(c, e->transcript, r, total);
}

int astra_cache_cleanup(struct astra_cache *c, long long max_size, long long unused_since, int wait,
			struct astra_cleanup_result *r)
{
	struct astra_storage *s = astra_cache_local(c);
	struct objects o;
	struct object **entries = NULL;
	size_t i, nr = 0;
	long long total = 0, now = astra_time();
	int lock;
	struct stat st;

	memset(r, 0, sizeof(*r));
	if (stat(astra_cache_dir(c), &st) < 0)
		return errno == ENOENT ? 0 : -1;
	lock = cleanup_lock(c, wait);
	if (lock == -2)
		return 1;
	if (lock < 0)
		return -1;
	astra_stats_inc(ASTRA_STAT_CLEANUPS);
	if (s->ops->sweep)
		s->ops->sweep(s, now - ASTRA_CLEANUP_TEMP_AGE, &r->swept);
	if (list_all(c, &o) < 0) {
		close(lock);
		return -1;
	}
	entries = xmalloc((o.nr + 1) * sizeof(*entries));
	for (i = 0; i < o.nr; i++) {
		struct object *ob = &o.v[i];
		total += ob->size;
		if (ob->kind == 1)
			entries[nr++] = ob;
	}
	/* Transcripts without an entry (older than a store in progress could be). */
	for (i = 0; i < o.nr; i++) {
		struct object *ob = &o.v[i];
		if (ob->kind == 2 && !ob->has_entry && ob->mtime / 1000000000LL < now - ASTRA_CLEANUP_TEMP_AGE) {
			long long before = r->removed_bytes;
			remove_object(c, ob, r, &total);
			r->removed_bytes = before;
			r->swept += ob->kind == -1;
		}
	}
	if (nr)
		qsort(entries, nr, sizeof(*entries), by_mtime);
	if (unused_since > 0)
		for (i = 0; i < nr && entries[i]->mtime / 1000000000LL < unused_since; i++)
			evict(c, entries[i], r, &total);
	if (max_size > 0 && total > max_size) {
		long long target = max_size / 10 * 9;
		for (i = 0; i < nr && total > target; i++)
			if (entries[i]->kind == 1)
				evict(c, entries[i], r, &total);
	}
	for (i = 0; i < nr; i++)
		r->entries += entries[i]->kind == 1;
	r->bytes = total;
	astra_trace(ASTRA_TRACE_CACHE, "cleanup: removed %lld entries (%lld bytes), swept %lld files; %lld entries, %lld bytes left",
		    r->removed_entries, r->removed_bytes, r->swept, r->entries, r->bytes);
	free(entries);
	objects_release(&o);
	close(lock);
	return 0;
}

/* Remove the two-level directories that are empty now (rmdir fails otherwise). */
static void remove_empty_dirs(const char *dir)
{
	DIR *d0 = opendir(dir);
	struct dirent *e0;
	if (!d0)
		return;
	while ((e0 = readdir(d0)) != NULL) {
		DIR *d1;
		struct dirent *e1;
		char *p1;
		if (strlen(e0->d_name) != 2 || e0->d_name[0] == '.')
			continue;
		p1 = xasprintf("%s/%s", dir, e0->d_name);
		d1 = opendir(p1);
		if (d1) {
			while ((e1 = readdir(d1)) != NULL) {
				char *p2;
				if (strlen(e1->d_name) != 2 || e1->d_name[0] == '.')
					continue;
				p2 = xasprintf("%s/%s", p1, e1->d_name);
				rmdir(p2);
				free(p2);
			}
			closedir(d1);
		}
		rmdir(p1);
		free(p1);
	}
	closedir(d0);
}

int astra_cache_clear(struct astra_cache *c, struct astra_cleanup_result *r)
{
	struct astra_storage *s = astra_cache_local(c);
	struct objects o;
	long long total = 0;
	size_t i;
	int lock, ret = 0;
	struct stat st;

	memset(r, 0, sizeof(*r));
	if (stat(astra_cache_dir(c), &st) < 0)
		return errno == ENOENT ? 0 : -1;
	lock = cleanup_lock(c, 1);
	if (lock < 0)
		return -1;
	if (s->ops->sweep)
		s->ops->sweep(s, astra_time() + 1, &r->swept);
	if (list_all(c, &o) < 0) {
		close(lock);
		return -1;
	}
	for (i = 0; i < o.nr; i++)
		total += o.v[i].size;
	for (i = 0; i < o.nr; i++) {
		struct object *ob = &o.v[i];
		if (ob->kind == 1)
			evict(c, ob, r, &total);
		else if (ob->kind == 2 && !ob->has_entry)
			remove_object(c, ob, r, &total);
		else if (ob->kind == 0)
			remove_object(c, ob, r, &total);
	}
	for (i = 0; i < o.nr; i++)
		if (o.v[i].kind != -1)
			ret = -1;
	r->bytes = total;
	remove_empty_dirs(astra_cache_dir(c));
	objects_release(&o);
	close(lock);
	return ret;
}
