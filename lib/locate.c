/*
 * locate.c - find the real nvcc (see locate.h).
 */
#include "autoconfig.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/locate.h"
#include "lib/run.h"

int astra_is_self(const char *path)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct stat sa, sb;
	if (!realpath(path, a) || !realpath("/proc/self/exe", b))
		return 0;
	if (!strcmp(a, b))
		return 1;
	/* A hard link or a copy of the same inode is self too. */
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int astra_is_real_nvcc(const char *path)
{
	char real[PATH_MAX], magic[4];
	char *profile;
	int fd, ok;
	if (!realpath(path, real) || strcmp(astra_basename(real), "nvcc"))
		return 0;
	profile = xasprintf("%.*s/nvcc.profile", (int)(astra_basename(real) - real - 1), real);
	ok = access(profile, F_OK) == 0;
	free(profile);
	if (!ok || (fd = open(real, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	ok = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return ok;
}

/* The process id the guard names, or 0. */
static long guard_pid(void)
{
	const char *v = astra_getenv(ASTRA_GUARD_ENV);
	char *end;
	long pid;
	if (!v)
		return 0;
	pid = strtol(v, &end, 10);
	return *end || pid <= 0 ? 0 : pid;
}

int astra_guard_active(void)
{
	long pid = guard_pid();
	return pid && (pid == (long)getpid() || pid == (long)getppid());
}

void astra_guard_drop_stale(void)
{
	if (getenv(ASTRA_GUARD_ENV) && !astra_guard_active())
		unsetenv(ASTRA_GUARD_ENV);
}

void astra_guard_prepare(const char *program)
{
	char pid[32];
	if (astra_is_real_nvcc(program)) {
		unsetenv(ASTRA_GUARD_ENV);
		return;
	}
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	setenv(ASTRA_GUARD_ENV, pid, 1);
}

static int usable(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0 &&
	       !astra_is_self(path);
}

static char *try_home(const char *var)
{
	const char *home = astra_getenv(var);
	char *p;
	if (!home)
		return NULL;
	p = xasprintf("%s/bin/nvcc", home);
	if (usable(p))
		return p;
	free(p);
	return NULL;
}

char *astra_locate_nvcc(int skip_configured, const char **why)
{
	const char *configured = astra_config_str(ASTRA_CFG_NVCC);
	const char *path = getenv("PATH");
	char *p;

	*why = NULL;
	if (!skip_configured && *configured) {
		static char msg[1024];
		char *c = astra_which(configured);
		if (usable(c))
			return c;
		/*
		 * No fallback to PATH: whoever set it meant that nvcc, and another
		 * one may be another CUDA version, building other code without a
		 * word (doc/astra-cc.1, the nvcc setting).  A setting naming
		 * astra-cc itself (a symlink called nvcc) says so: it is an
		 * executable, and "not an executable nvcc" would puzzle.
		 */
		snprintf(msg, sizeof(msg), "the nvcc setting (%s) names %s, which is %s; "
			 "astra-cc does not look for another one (unset it to search CUDA_HOME and PATH)",
			 astra_config_origin(ASTRA_CFG_NVCC), configured,
			 c && astra_is_self(c) ? "astra-cc itself, not the real nvcc" : "not an executable nvcc");
		free(c);
		*why = msg;
		return NULL;
	}
	if ((p = try_home("CUDA_HOME")) || (p = try_home("CUDA_PATH")))
		return p;
	while (path && *path) {
		size_t n = strcspn(path, ":");
		char *cand = xasprintf("%.*s/nvcc", (int)n, n ? path : ".");
		if (usable(cand))
			return cand;
		free(cand);
		path += n;
		if (*path == ':')
			path++;
	}
	if (usable(ASTRA_CONFIGURED_NVCC))
		return xstrdup(ASTRA_CONFIGURED_NVCC);
	*why = "no nvcc other than astra-cc itself in ASTRA_CC_NVCC, CUDA_HOME, CUDA_PATH or PATH";
	return NULL;
}
