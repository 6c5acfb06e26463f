/*
 * trust.h - whose files astra-cc believes: the trust model of a cache that
 * other people can write (doc/cache.md, "Sharing a cache").
 *
 * An entry in the cache is code that ends up in the user's binary, and the
 * cache's configuration names the program astra-cc runs as nvcc; so what
 * astra-cc reads from a cache directory is used only when the right person
 * wrote it, whatever the directory's permissions allow.  As git refuses a
 * repository owned by someone else (safe.directory), astra-cc refuses
 * files written by someone it was not told to trust:
 *
 *   - content (entries, transcripts, warmup queue items, device ceilings)
 *     is trusted when its file is owned by the user, by root, or by a
 *     member of the group the `trusted_group` setting names; and when it
 *     is not writable by others, nor by its group unless that group is
 *     `trusted_group` (a file someone else may rewrite is theirs too);
 *   - the cache's own configuration file is stricter: owned by the user or
 *     root, not writable by others, and writable by its group only when
 *     that group is `trusted_group` (taken from the environment or the
 *     system configuration, never from the file being judged);
 *   - an object whose tier cannot say who wrote it (an HTTP tier) is
 *     trusted as far as the server the user configured is; with
 *     require_signature its entries' signatures must verify, as on every
 *     tier (astra_trust_unowned, cache/sign.h).
 *
 * What astra-cc creates in a cache is made with the `umask` setting (as in
 * ccache), or when that is unset with the process's umask and never
 * writable by group or others: a private cache stays private, and a shared
 * one is shared on purpose (umask = 002 with trusted_group, see the doc).
 */
#ifndef ASTRA_TRUST_H
#define ASTRA_TRUST_H

#include <sys/types.h>

#include "lib/buf.h"

/*
 * The gid that `trusted_group` names (a group name or a number): 1 and
 * *gid set, 0 when the setting is empty, -1 when it names no group (said
 * once in the log; nobody but the user and root is trusted then).
 */
int astra_trust_group(gid_t *gid);

/*
 * May astra-cc use content that the file system says uid wrote, with this
 * gid and mode?  1 yes; 0 no, with the reason appended to why (may be
 * NULL).  trusted_gid: the trusted group's gid, or -1 for none.  Pure:
 * astra_trust_content() below applies the settings.
 */
int astra_trust_check(uid_t uid, gid_t gid, mode_t mode, long long trusted_gid, struct astra_buf *why);

/* The same with the trusted_group setting. */
int astra_trust_content(uid_t uid, gid_t gid, mode_t mode, struct astra_buf *why);

/*
 * May astra-cc read the cache's configuration file, with this owner and
 * mode?  trusted_gid as above (the caller takes it from the environment or
 * the system configuration).  1 or 0 (why appended).
 */
int astra_trust_config(uid_t uid, gid_t gid, mode_t mode, long long trusted_gid, struct astra_buf *why);

/*
 * The hook for tiers that cannot report a file's owner (remote storage):
 * until entries carry a signature (the scale issue's signing), such an
 * object is not trusted.  name: the object's name, for the reason.
 * Returns 0 and appends why.
 */
int astra_trust_unowned(const char *name, struct astra_buf *why);

/* The mask for everything astra-cc creates in a cache (see above). */
mode_t astra_trust_umask(void);

/*
 * Make the cache's umask the process's while creating files in a cache:
 * returns the previous umask for astra_trust_umask_leave().  (The process
 * is single-threaded where it writes the cache.)
 */
mode_t astra_trust_umask_enter(void);
void astra_trust_umask_leave(mode_t old);

/* Parse an octal umask ("002", "0077"): 0 and *out, or -1. */
int astra_trust_parse_umask(const char *s, mode_t *out);

#endif
