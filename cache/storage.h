/*
 * storage.h - where cache objects live: a struct of function pointers.
 *
 * The store (store.c) speaks to storage in terms of named blobs, the way
 * ccache speaks to its remote storage: get, put, head, remove, list.  The
 * local directory (storage-file.c) is the first implementation; the HTTP
 * tier (storage-http.c: GET/PUT/HEAD/DELETE against any WebDAV server,
 * e.g. nginx with dav_methods) is the second, and the store tries the
 * tiers in order without its callers changing.
 *
 * Object names are "<32 hex key>-<cc>.<kind>", e.g.
 * "0123456789abcdef0123456789abcdef-90.entry"; kinds are "entry",
 * "transcript" and "sig" (cache/names.h; the local tier also keeps "queue" items and
 * "device" ceilings).  A backend may map a name to anything (the local one
 * uses two-level hex directories: 01/23/<name>).  Names contain only
 * [0-9a-z.-] and start with at least four hex digits
 * (astra_storage_name_ok).
 *
 * The local directory tier has a few operations of its own, below: local
 * names at the top of the directory ("stats", "cleanup.lock"), flock(2)
 * locks, and tidying.  Everything that touches the cache directory goes
 * through this interface; storage-file.c is the only file that knows the
 * directory's layout.
 *
 * Contract for every backend:
 *   - put is atomic: a concurrent get returns the old blob, the new blob
 *     or "absent", never a mixture;
 *   - get/head return 1 (found), 0 (absent) or -1 (error, errno set), and
 *     fill the object's astra_storage_stat, its owner when the tier knows
 *     it (the store decides whether it trusts the writer);
 *   - errors are returned, not logged: the store decides what they mean
 *     (every storage error is a miss for the build);
 *   - touch records a use for LRU cleanup; it may do nothing.
 */
#ifndef ASTRA_STORAGE_H
#define ASTRA_STORAGE_H

#include <stddef.h>

#include "lib/buf.h"

struct astra_storage_stat {
	long long size;    /* bytes */
	long long mtime;   /* last use, nanoseconds since the epoch */
	/*
	 * Who wrote the object, for the trust model (lib/trust.h): the file
	 * tier reports its file's owner, group and mode.  A tier that cannot
	 * (a remote one) leaves has_owner 0, and the store then asks for a
	 * signature instead (astra_trust_unowned, the hook for signing).
	 */
	int has_owner;
	unsigned uid, gid, mode;
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
	/* Where object `name` lives, for people: a path or a URL (malloc'd). */
	char *(*where)(struct astra_storage *s, const char *name);
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
 * The HTTP backend (storage-http.c) for url ("http://host:port/path/" or
 * https) with attrs, the rest of the tier's specification
 * ("|read-only|connect-timeout=500|operation-timeout=2000", or "").
 * Returns NULL (logged) for a URL it cannot use, one with credentials in
 * it included.  Opening sends nothing over the network.
 */
struct astra_storage *astra_storage_http_open(const char *url, const char *attrs);

/* ---- The local directory tier's own operations. ---- */

/*
 * A local name: [a-z][a-z0-9.-]*, at most 64 bytes, no "..": a file at the
 * top of the cache directory ("stats", "stats.lock").  The file tier's
 * get/put/head/remove accept local names as well as object names; list()
 * walks objects only.
 */
int astra_storage_local_name_ok(const char *name);

/* Does the tier's directory exist?  (A missing one is an empty cache.) */
int astra_storage_file_present(struct astra_storage *s);

/*
 * Create the tier's directory itself, not its parents (what a statistics
 * update may do: a cache under a directory that does not exist stays
 * uncreated until something is stored).  0, or -1 with errno.
 */
int astra_storage_file_create(struct astra_storage *s);

/*
 * A lock held on a file of the tier: flock(2), released by the kernel when
 * its holder exits or is killed (kill -9 included).  `name` is an object
 * name ending in ".lock" (it sits beside the object: the per-key locks) or
 * a local name ending in ".lock" (at the top).  The lock file is created
 * with O_NOFOLLOW|O_NONBLOCK in its directory opened without following
 * links, and must be a regular file.  After flock succeeds the locker checks that the name
 * still names the file it locked (its holder may have removed it) and
 * starts over otherwise, so removing a lock file while holding it is safe.
 */
struct astra_file_lock {
	int fd;
	int dir;     /* the directory that holds it, opened without following links */
	char *name;
};
#define ASTRA_FILE_LOCK_INIT { -1, -1, NULL }

/*
 * Take the lock, waiting up to wait seconds (0: try once; negative: as
 * long as it takes).  Returns 1 (held), 0 (held by another process for the
 * whole wait) or -1 (the lock file cannot be made or locked: errno set).
 */
int astra_storage_file_lock(struct astra_storage *s, const char *name, double wait, struct astra_file_lock *lk);

/* Release a held lock, removing its file first when remove is set; a no-op on an unheld one. */
void astra_storage_file_unlock(struct astra_file_lock *lk, int remove);

/* Is the lock held by some process right now?  1, 0, or -1. */
int astra_storage_file_lock_held(struct astra_storage *s, const char *name);

/* Remove the two-level directories that are empty now. */
void astra_storage_file_tidy(struct astra_storage *s);

#endif
