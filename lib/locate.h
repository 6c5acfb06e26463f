/*
 * locate.h - finding the real nvcc without finding astra-cc again.
 *
 * astra-cc may be installed as `nvcc` (a symlink early in PATH) or named by
 * NVCC=astra-cc, so a plain PATH lookup can return astra-cc itself.  The
 * search order is: the `nvcc` setting (ASTRA_CC_NVCC), $CUDA_HOME/bin/nvcc,
 * $CUDA_PATH/bin/nvcc, every `nvcc` in PATH, the nvcc found by configure;
 * any candidate that resolves to this executable is skipped.
 *
 * Recursion guard: before running nvcc, astra-cc exports ASTRA_CC_GUARD.
 * If astra-cc starts and finds it set, the "real" nvcc it ran was a wrapper
 * that came back to astra-cc; it then only passes the command through, to
 * a candidate other than the configured one, and gives up with a clear
 * message if there is none.
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

#endif
