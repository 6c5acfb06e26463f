/*
 * workspace.c - private temporary directories and the sweeping of stale
 * ones (see workspace.h).
 *
 * Apart from run.c because it touches a directory everybody shares
 * (TMPDIR): everything below works relative to directory descriptors
 * opened without following links, so that nothing planted in /tmp can
 * make it remove anything outside a workspace of the user's.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/run.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "lib/workspace.h"

int astra_workspace_shell_safe(const char *s)
{
	/*
	 * Letters, digits, /._+-@%: and bytes of multibyte characters:
	 * nothing a shell expands, splits, globs or quotes.
	 */
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80 ||
		      strchr("/._+-@%:", c)))
			return 0;
	}
	return 1;
}

const char *astra_workspace_tmpdir(void)
{
	const char *tmp = astra_getenv("TMPDIR");
	return tmp && tmp[0] == '/' && astra_workspace_shell_safe(tmp) ? tmp : "/tmp";
}

char *astra_workspace_make(const char *prefix)
{
	const char *tmp = astra_workspace_tmpdir();
	size_t n = strlen(tmp);
	char *tmpl = xasprintf("%s%s%sXXXXXX", tmp, n && tmp[n - 1] == '/' ? "" : "/", prefix);
	if (!mkdtemp(tmpl)) {
		error("cannot create a temporary directory %s: %s", tmpl, strerror(errno));
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

/* Remove everything in the directory open as dfd (not dfd itself); depth bounds the recursion. */
static int empty_dir(int dfd, int depth)
{
	struct astra_vec names = ASTRA_VEC_INIT;
	int fd = dup(dfd), ret = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	size_t i;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* The duplicate shares its offset with dfd, which may have been read. */
	rewinddir(d);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			astra_vec_push(&names, de->d_name);
	closedir(d);
	for (i = 0; i < names.nr; i++) {
		struct stat st;
		const char *name = names.v[i];
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub = depth < 16 ? openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
			if (sub < 0 || empty_dir(sub, depth + 1) < 0)
				ret = -1;
			if (sub >= 0)
				close(sub);
			if (unlinkat(dfd, name, AT_REMOVEDIR) < 0)
				ret = -1;
		} else if (unlinkat(dfd, name, 0) < 0) {
			/* A link, a file, a FIFO: the name goes, never what a link names. */
			ret = -1;
		}
	}
	astra_vec_clear(&names);
	return ret;
}

int astra_workspace_remove(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ret;
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	ret = empty_dir(fd, 0);
	close(fd);
	if (rmdir(dir) < 0)
		ret = -1;
	return ret;
}

static int mkdtemp_suffix(const char *s)
{
	size_t i;
	for (i = 0; i < 6; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return s[6] == '\0';
}

/* The newest mtime of the directory open as fd and of its entries. */
static long long newest(int fd, const struct stat *self)
{
	long long t = (long long)self->st_mtime;
	int fd2 = dup(fd);
	DIR *d = fd2 >= 0 ? fdopendir(fd2) : NULL;
	struct dirent *de;
	if (!d) {
		if (fd2 >= 0)
			close(fd2);
		return t;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (long long)st.st_mtime > t)
			t = (long long)st.st_mtime;
	}
	closedir(d);
	return t;
}

long astra_workspace_sweep(const char *prefix, long long age)
{
	const char *tmp = astra_workspace_tmpdir();
	size_t plen = strlen(prefix);
	int tfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC), dfd;
	long long now = astra_time();
	struct astra_vec names = ASTRA_VEC_INIT;
	DIR *d;
	struct dirent *de;
	long removed = 0;
	size_t i;

	if (tfd < 0)
		return 0;
	dfd = dup(tfd);
	d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		close(tfd);
		return 0;
	}
	while ((de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, prefix, plen) && mkdtemp_suffix(de->d_name + plen))
			astra_vec_push(&names, de->d_name);
	closedir(d);
	for (i = 0; i < names.nr; i++) {
		struct stat st;
		int fd = openat(tfd, names.v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Only the user's own directories, and only stale ones. */
		if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && now - newest(fd, &st) >= age) {
			empty_dir(fd, 0);
			if (unlinkat(tfd, names.v[i], AT_REMOVEDIR) == 0) {
				removed++;
				astra_trace(ASTRA_TRACE_DRIVER, "swept the stale workspace %s/%s", tmp, names.v[i]);
			}
		}
		close(fd);
	}
	astra_vec_clear(&names);
	close(tfd);
	return removed;
}
