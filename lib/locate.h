/*
 * locate.h - finding the real nvcc without finding astra-cc again.
 *
 * astra-cc may be installed as `nvcc` (a symlink early in PATH) or named by
 * NVCC=astra-cc, so a plain PATH lookup can return astra-cc itself.  The
 * search order is: the `nvcc` setting (ASTRA_CC_NVCC), $CUDA_HOME/bin/nvcc,
 * $CUDA_PATH/bin/nvcc, every `nvcc` in PATH, the nvcc found by configure;
 * any candidate that resolves to this executable is skipped.
 *
 * Recursion guard: before astra-cc hands a command to a program that might
 * come back to it (a wrapper script, ccache: anything but the real nvcc
 * binary), it exports ASTRA_CC_GUARD=<its process id>.  If astra-cc starts
 * and finds the guard naming itself (a wrapper that exec'd it) or its
 * parent (a wrapper that ran it), the "real" nvcc it ran was a wrapper that
 * came back to astra-cc; it then only passes the command through, to a
 * candidate other than the configured one, and gives up with a clear
 * message if there is none.  The real nvcc is run without the guard, and a
 * guard that names another process is dropped at start, so it never
 * reaches nvcc, the programs nvcc runs, or an astra-cc that a build step
 * further down starts for a compile of its own.
 */
#ifndef ASTRA_LOCATE_H
#define ASTRA_LOCATE_H

#define ASTRA_GUARD_ENV "ASTRA_CC_GUARD"

/*
 * Return the path of the real nvcc (malloc'd), or NULL with *why set to a
 * static explanation.  skip_configured: ignore the `nvcc` setting (used under
 * the recursion guard).
 */
char *astra_locate_nvcc(int skip_configured, const char **why);

/* Non-zero if path resolves to the running astra-cc executable. */
int astra_is_self(const char *path);

/*
 * Non-zero if path is NVIDIA's nvcc itself (an ELF executable named nvcc
 * with nvcc.profile beside it, symbolic links resolved), which never runs
 * astra-cc again; zero for wrappers, scripts and launchers.
 */
int astra_is_real_nvcc(const char *path);

/* Is the recursion guard set for this process (see above)? */
int astra_guard_active(void);
/* Drop a guard that is not for this process (call once at start). */
void astra_guard_drop_stale(void);
/*
 * Before running or executing a command whose compiler is program (after
 * any launcher, which is handed program's resolved path): export the guard
 * when program might come back to astra-cc, remove it when program is the
 * real nvcc.
 */
void astra_guard_prepare(const char *program);

#endif
