/*
 * storage.h - where cache objects live: a struct of function pointers.
 *
 * The store (store.c) speaks to storage in terms of named blobs, the way
 * ccache speaks to its remote storage: get, put, head, remove, list.  The
 * local directory (storage-file.c) is the first implementation; an HTTP
 * tier (GET/PUT/HEAD/DELETE against any WebDAV server, e.g. nginx with
 * dav_methods) is a second file implementing the same operations, and the
 * store will try the tiers in order without its callers changing.
 *
 * Object names are "<32 hex key>-<cc>.<kind>", e.g.
 * "0123456789abcdef0123456789abcdef-90.entry"; kinds are "entry" and
 * "transcript".  A backend may map a name to anything (the local one uses
 * two-level hex directories: 01/23/<name>).  Names contain only [0-9a-z.-]
 * and start with at least four hex digits (astra_storage_name_ok).
 *
 * Contract for every backend:
 *   - put is atomic: a concurrent get returns the old blob, the new blob
 *     or "absent", never a mixture;
 *   - get/head return 1 (found), 0 (absent) or -1 (error, errno set);
 *   - errors are returned, not logged: the store decides what they mean
 *     (every storage error is a miss for the build);
 *   - touch records a use for LRU cleanup; it may do nothing.
 */
#ifndef ASTRA_STORAGE_H
#define ASTRA_STORAGE_H

#include <stddef.h>

#include "astra-cc/buf.h"

struct astra_storage_stat {
	long long size;    /* bytes */
	long long mtime;   /* last use, nanoseconds since the epoch */
};

/* Called for each object by list(); a non-zero return stops the walk. */
typedef int (*astra_storage_list_fn)(const char *name, const struct astra_storage_stat *st, void *data);

struct astra_storage;

struct astra_storage_ops {
	const char *scheme; /* "file", later "http" */
	int (*get)(struct astra_storage *s, const char *name, struct astra_buf *out,
		   struct astra_storage_stat *st);
	int (*put)(struct astra_storage *s, const char *name, const void *data, size_t len);
	int (*head)(struct astra_storage *s, const char *name, struct astra_storage_stat *st);
	/* 0 when removed or already absent, -1 on error. */
	int (*remove)(struct astra_storage *s, const char *name);
	int (*touch)(struct astra_storage *s, const char *name);
	/*
	 * Every object whose name starts with prefix ("" for all), in no
	 * particular order.  Returns 0, the callback's non-zero value, or -1.
	 */
	int (*list)(struct astra_storage *s, const char *prefix, astra_storage_list_fn fn, void *data);
	/*
	 * Local leftovers: temporary files older than `before` (seconds since
	 * the epoch) and lock files nobody holds.  NULL for remote tiers.
	 * Adds the number of files removed to *removed.
	 */
	int (*sweep)(struct astra_storage *s, long long before, long long *removed);
	void (*close)(struct astra_storage *s);
};

struct astra_storage {
	const struct astra_storage_ops *ops;
	char *url;   /* for messages: the directory, or the server's URL */
	void *state;
};

/* Is name a valid object name (see above)? */
int astra_storage_name_ok(const char *name);

/*
 * The local directory backend.  Opening never fails and creates nothing:
 * a missing directory is an empty cache until the first put creates it.
 * The caller frees the result with s->ops->close(s).
 */
struct astra_storage *astra_storage_file_open(const char *dir);

/*
 * Path of object (or lock) `name` under dir in the local layout:
 * dir/<name[0..1]>/<name[2..3]>/name.  Malloc'd.  The lock module uses it so
 * locks sit beside the entries they protect.
 */
char *astra_storage_file_path(const char *dir, const char *name);

#endif
