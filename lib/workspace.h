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
 * are swept: by name (prefix and six mkdtemp characters), by age (nothing
 * in the directory changed for `age` seconds), and only when the
 * directory is the user's own.  Removal never follows a symbolic link (a
 * link inside a workspace is removed, not what it points to) and never
 * leaves the workspace.  Named workspaces (a fixed name, reused by the
 * next run under it) are swept the same way, their lock deciding whether
 * one is in use (astra_workspace_sweep_locked).
 */
#ifndef ASTRA_WORKSPACE_H
#define ASTRA_WORKSPACE_H

/* Workspaces untouched for a day are the leftovers of killed processes. */
#define ASTRA_WORKSPACE_STALE (24 * 3600)

/* Can s be pasted into a shell command unquoted and reach the program unchanged? */
int astra_workspace_shell_safe(const char *s);

/* The directory workspaces go in: TMPDIR when set and shell-safe, else /tmp. */
const char *astra_workspace_tmpdir(void);

/* Make a new workspace <tmpdir>/<prefix>XXXXXX; malloc'd path, or NULL (logged). */
char *astra_workspace_make(const char *prefix);

/*
 * Remove dir and everything in it, never following a symbolic link and
 * never leaving it.  0, or -1 when something could not be removed.
 */
int astra_workspace_remove(const char *dir);

/*
 * Remove the stale workspaces named <prefix>XXXXXX in the workspace
 * directory: the user's own, unchanged for at least age seconds (the
 * newest mtime of the directory and its first-level entries).  Returns how
 * many were removed.
 */
long astra_workspace_sweep(const char *prefix, long long age);

/*
 * Named workspaces: directories with fixed names in a private parent
 * directory of the user's (mode 0700, not a link), each NAME with a lock
 * file NAME.lock beside it that its user holds (flock) while it works in
 * it and removes with it (passes/substitute.c).  A killed process leaves
 * both behind; a later run under the same name empties and reuses the
 * directory, and this sweeps the ones nobody comes back to: every
 * directory of the user's in parent unchanged for at least age seconds
 * (as above) whose lock nobody holds, taking the lock while it removes the
 * directory and the lock file; and lock files at least age seconds old
 * whose directory is gone.  Nothing is done when parent is not private.
 * Returns how many directories were removed.
 */
long astra_workspace_sweep_locked(const char *parent, long long age);

#endif
