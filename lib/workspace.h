/*
 * workspace.h - private temporary directories: a substituted compile's
 * rewritten sources, a verification's test programs.
 *
 * A workspace is TMPDIR/<prefix>XXXXXX, made by mkdtemp(3) (mode 0700, the
 * user's).  Its path is used on nvcc's command line, which nvcc hands to a
 * shell unquoted (-Xcompiler values), so it must hold no character a shell
 * would interpret: when TMPDIR has one, /tmp is used instead.
 *
 * A process killed with SIGKILL cannot remove its workspace, so old ones
 * are swept.  A sweep removes only what is provably a workspace: a
 * directory of the user's own with the workspace's name (prefix and six
 * mkdtemp characters), holding the marker file ASTRA_WORKSPACE_MARKER that
 * astra_workspace_make puts there (a regular file of the user's), whose
 * contents have not changed for `age` seconds, and that neither is nor
 * contains the cache directory (the `dir` setting).  Removal never follows
 * a symbolic link (a link inside a workspace is removed, not what it
 * points to) and never leaves the workspace.  Named workspaces (a fixed
 * name, reused by the next run under it) live in a root of their own,
 * ASTRA_WORKSPACE_ROOT<uid> in the workspace directory, which must not
 * overlap the cache directory, and are swept the same way, their lock
 * deciding whether one is in use (astra_workspace_sweep_locked).
 *
 * Why the marker and the dedicated root: the default cache directory
 * without HOME is /tmp/astra-cc-<uid>, which was also the named
 * workspaces' parent, and the sweep removed the cache's own xx/ directories
 * as stale workspaces (issue 28, item 1).
 */
#ifndef ASTRA_WORKSPACE_H
#define ASTRA_WORKSPACE_H

/* Workspaces untouched for a day are the leftovers of killed processes. */
#define ASTRA_WORKSPACE_STALE (24 * 3600)

/* The file in every workspace that says it is one (empty, mode 0600). */
#define ASTRA_WORKSPACE_MARKER ".astra-cc-workspace"

/* The named workspaces' root in the workspace directory: this, then the uid. */
#define ASTRA_WORKSPACE_ROOT "astra-cc-workspaces-"

/* A named workspace's name: this many lowercase hex digits. */
#define ASTRA_WORKSPACE_NAME_LEN 16

/* Can s be pasted into a shell command unquoted and reach the program unchanged? */
int astra_workspace_shell_safe(const char *s);

/* The directory workspaces go in: TMPDIR when set and shell-safe, else /tmp. */
const char *astra_workspace_tmpdir(void);

/* Make a new workspace <tmpdir>/<prefix>XXXXXX, marked; malloc'd path, or NULL (logged). */
char *astra_workspace_make(const char *prefix);

/* Put the marker into dir, a workspace just made.  0, or -1 (logged). */
int astra_workspace_mark(const char *dir);

/*
 * Is a at or under b, or b at or under a?  Both are resolved (links,
 * "..") as far as they exist; 1 or 0.
 */
int astra_workspace_overlaps(const char *a, const char *b);

/*
 * The named workspaces' root, TMPDIR/ASTRA_WORKSPACE_ROOT<uid> (malloc'd),
 * or NULL when it overlaps the cache directory: then there are no named
 * workspaces (a cache configured there keeps its files).
 */
char *astra_workspace_root(void);

/*
 * Remove dir and everything in it, never following a symbolic link and
 * never leaving it.  0, or -1 when something could not be removed.
 */
int astra_workspace_remove(const char *dir);

/*
 * Remove the stale workspaces named <prefix>XXXXXX in the workspace
 * directory: the user's own, marked, unchanged for at least age seconds
 * (the newest mtime of the directory and its first-level entries), not
 * holding the cache directory.  Returns how many were removed.
 */
long astra_workspace_sweep(const char *prefix, long long age);

/*
 * Named workspaces: directories with fixed names in a private parent
 * directory of the user's (mode 0700, not a link), each NAME with a lock
 * file NAME.lock beside it that its user holds (flock) while it works in
 * it and removes with it (passes/substitute.c).  A killed process leaves
 * both behind; a later run under the same name empties and reuses the
 * directory, and this sweeps the ones nobody comes back to: every
 * directory of the user's in parent named with ASTRA_WORKSPACE_NAME_LEN
 * hex digits, marked, unchanged for at least age seconds (as above) whose
 * lock nobody holds, taking the lock while it removes the directory and
 * the lock file; and such lock files at least age seconds old whose
 * directory is gone.  Nothing is done when parent is not private or
 * overlaps the cache directory.  Returns how many directories were
 * removed.
 */
long astra_workspace_sweep_locked(const char *parent, long long age);

#endif
