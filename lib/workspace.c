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
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/config.h"
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

int astra_workspace_mark(const char *dir)
{
	char *p = xasprintf("%s/" ASTRA_WORKSPACE_MARKER, dir);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		error("cannot create %s: %s", p, strerror(errno));
		free(p);
		return -1;
	}
	close(fd);
	free(p);
	return 0;
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
	if (astra_workspace_mark(tmpl) < 0) {
		rmdir(tmpl);
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

/* p with links and ".." resolved as far as it exists (the rest as written); malloc'd. */
static char *resolve(const char *p)
{
	char *r = realpath(p, NULL), *dir, *res;
	const char *slash;
	if (r)
		return r;
	slash = strrchr(p, '/');
	if (!slash || slash == p)
		return xstrdup(p);
	dir = xstrndup(p, (size_t)(slash - p));
	r = resolve(dir);
	free(dir);
	res = xasprintf("%s%s", strcmp(r, "/") ? r : "", slash);
	free(r);
	return res;
}

/* Is the resolved path a at or under the resolved path b? */
static int at_or_under(const char *a, const char *b)
{
	size_t n = strlen(b);
	if (!strcmp(b, "/"))
		return 1;
	return !strncmp(a, b, n) && (a[n] == '\0' || a[n] == '/');
}

int astra_workspace_overlaps(const char *a, const char *b)
{
	char *ra, *rb;
	int r;
	if (!a || !*a || !b || !*b)
		return 0;
	ra = resolve(a);
	rb = resolve(b);
	r = at_or_under(ra, rb) || at_or_under(rb, ra);
	free(ra);
	free(rb);
	return r;
}

/* The cache directory, resolved (malloc'd), or NULL when there is none. */
static char *cache_dir(void)
{
	const char *dir = astra_config_str(ASTRA_CFG_DIR);
	return dir && *dir ? resolve(dir) : NULL;
}

/* Is the cache directory (resolved, may be NULL) at or under dir/name? */
static int holds_cache(const char *cache, const char *dir, const char *name)
{
	char *p, *rp;
	int r;
	if (!cache)
		return 0;
	p = xasprintf("%s/%s", dir, name);
	rp = resolve(p);
	r = at_or_under(cache, rp);
	free(p);
	free(rp);
	return r;
}

char *astra_workspace_root(void)
{
	char *root = xasprintf("%s/" ASTRA_WORKSPACE_ROOT "%ld", astra_workspace_tmpdir(), (long)geteuid());
	const char *dir = astra_config_str(ASTRA_CFG_DIR);
	if (astra_workspace_overlaps(root, dir)) {
		astra_trace(ASTRA_TRACE_DRIVER, "%s overlaps the cache directory %s: no named workspaces", root, dir);
		free(root);
		return NULL;
	}
	return root;
}

/* Does the directory open as fd hold the marker, a regular file of the user's? */
static int marked(int fd)
{
	struct stat st;
	return fstatat(fd, ASTRA_WORKSPACE_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid();
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
	char *cache;

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
	cache = cache_dir();
	for (i = 0; i < names.nr; i++) {
		struct stat st;
		int fd = openat(tfd, names.v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Only the user's own workspaces, only stale ones, never the cache. */
		if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && marked(fd) && now - newest(fd, &st) >= age &&
		    !holds_cache(cache, tmp, names.v[i])) {
			empty_dir(fd, 0);
			if (unlinkat(tfd, names.v[i], AT_REMOVEDIR) == 0) {
				removed++;
				astra_trace(ASTRA_TRACE_DRIVER, "swept the stale workspace %s/%s", tmp, names.v[i]);
			}
		}
		close(fd);
	}
	free(cache);
	astra_vec_clear(&names);
	close(tfd);
	return removed;
}

/*
 * Take NAME.lock in the directory dfd without waiting, as the workspace's
 * owner does (passes/substitute.c, take_lock): open or create it, flock
 * it, and check that the name still names the file locked (the owner
 * removes it on release).  The descriptor, or -1 when it is held or
 * cannot be had.
 */
static int try_lock_at(int dfd, const char *lock)
{
	struct stat a, b;
	int f = openat(dfd, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (f < 0)
		return -1;
	if (flock(f, LOCK_EX | LOCK_NB) == 0 && fstat(f, &a) == 0 && S_ISREG(a.st_mode) &&
	    fstatat(dfd, lock, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return f;
	close(f);
	return -1;
}

/* A named workspace's name: ASTRA_WORKSPACE_NAME_LEN lowercase hex digits, then end or ".lock". */
static int named_workspace(const char *name, const char *end)
{
	size_t i;
	for (i = 0; i < ASTRA_WORKSPACE_NAME_LEN; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return 0;
	return !strcmp(name + ASTRA_WORKSPACE_NAME_LEN, end);
}

long astra_workspace_sweep_locked(const char *parent, long long age)
{
	int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), dfd;
	long long now = astra_time();
	struct astra_vec names = ASTRA_VEC_INIT;
	struct stat pst;
	DIR *d;
	struct dirent *de;
	long removed = 0;
	size_t i;

	if (pfd < 0)
		return 0;
	/*
	 * Only the user's private parent, where nobody else can have put
	 * anything, and never one that is, holds or lies in the cache.
	 */
	if (fstat(pfd, &pst) < 0 || pst.st_uid != geteuid() || (pst.st_mode & 077) ||
	    astra_workspace_overlaps(parent, astra_config_str(ASTRA_CFG_DIR))) {
		close(pfd);
		return 0;
	}
	dfd = dup(pfd);
	d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		close(pfd);
		return 0;
	}
	while ((de = readdir(d)) != NULL)
		if (named_workspace(de->d_name, "") || named_workspace(de->d_name, ".lock"))
			astra_vec_push(&names, de->d_name);
	closedir(d);
	for (i = 0; i < names.nr; i++) {
		const char *name = names.v[i];
		struct stat st;
		char *lock;
		int fd, lfd;

		if (named_workspace(name, ".lock")) {
			/*
			 * A lock whose directory is gone (killed between the two
			 * removals): removed once old and free.
			 */
			size_t n = strlen(name) - 5;
			char *base = xasprintf("%.*s", (int)n, name);
			int gone = fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
			free(base);
			if (gone && fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
			    st.st_uid == geteuid() && now - (long long)st.st_mtime >= age &&
			    (lfd = try_lock_at(pfd, name)) >= 0) {
				unlinkat(pfd, name, 0);
				close(lfd);
			}
			continue;
		}
		fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || !marked(fd) || now - newest(fd, &st) < age) {
			close(fd);
			continue;
		}
		/* Held: a compile is using it, however old its files look. */
		lock = xasprintf("%s.lock", name);
		lfd = try_lock_at(pfd, lock);
		if (lfd >= 0) {
			empty_dir(fd, 0);
			if (unlinkat(pfd, name, AT_REMOVEDIR) == 0) {
				removed++;
				astra_trace(ASTRA_TRACE_DRIVER, "swept the stale workspace %s/%s", parent, name);
			}
			unlinkat(pfd, lock, 0);
			close(lfd);
		}
		free(lock);
		close(fd);
	}
	astra_vec_clear(&names);
	close(pfd);
	return removed;
}
