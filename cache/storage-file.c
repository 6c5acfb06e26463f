/*
 * storage-file.c - the local directory backend of the storage interface
 * (see storage.h).
 *
 * Layout: dir/<name[0..1]>/<name[2..3]>/<name>, i.e. two levels of hex
 * directories taken from the key, as ccache does, so no directory holds
 * more than a few hundred files even with millions of entries.  Writes go
 * through astra_fsio_write_atomic_at (temp file + rename).  The last use of
 * an object is its mtime: a hit sets it (touch) instead of rewriting the
 * entry, so reading never races with writing.
 *
 * Nothing here follows a symbolic link inside the cache: every operation
 * opens the two levels with O_DIRECTORY|O_NOFOLLOW from the cache
 * directory (open_parent) and then works relative to that descriptor
 * (openat, unlinkat, renameat, fstatat and utimensat without following),
 * so a symlinked subdirectory planted by someone who can write the cache,
 * even one swapped in between a listing and a removal, never makes
 * astra-cc read, write or delete outside it.  (The cache directory itself
 * may be a symbolic link the user made.)
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/trust.h"
#include "lib/util.h"
#include "cache/fsio.h"
#include "cache/storage.h"

/* The biggest object a get will read: entries are kilobytes. */
#define MAX_OBJECT (64u << 20)

static int is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int astra_storage_name_ok(const char *name)
{
	size_t i, n = strlen(name);
	if (n < 5 || n > 200)
		return 0;
	for (i = 0; i < 4; i++)
		if (!is_hex(name[i]))
			return 0;
	for (; i < n; i++) {
		char c = name[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '.' || c == '-'))
			return 0;
	}
	return !astra_fsio_is_temp(name) && !strstr(name, "..");
}

int astra_storage_local_name_ok(const char *name)
{
	size_t i, n = strlen(name);
	if (n < 1 || n > 64 || name[0] < 'a' || name[0] > 'z')
		return 0;
	for (i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '.' || c == '-'))
			return 0;
	}
	return !astra_fsio_is_temp(name) && !strstr(name, "..");
}

/* Objects in dir/<name[0..1]>/<name[2..3]>/name; local names in dir/name. */
static char *path_of(struct astra_storage *s, const char *name)
{
	if (astra_storage_name_ok(name))
		return xasprintf("%s/%.2s/%.2s/%s", s->url, name, name + 2, name);
	return xasprintf("%s/%s", s->url, name);
}

static int name_ok(const char *name)
{
	return astra_storage_name_ok(name) || astra_storage_local_name_ok(name);
}

/* Open the cache directory itself (following a symlink the user made); create: make it. */
static int open_top(struct astra_storage *s, int create)
{
	int fd = open(s->url, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create && astra_fsio_mkdirs(s->url) == 0)
		fd = open(s->url, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd;
}

/* Open subdirectory sub of dfd without following a link; create: make it first if missing. */
static int open_sub(int dfd, const char *sub, int create)
{
	int fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		mode_t old = astra_trust_umask_enter();
		int r = mkdirat(dfd, sub, 0777), saved = errno;
		astra_trust_umask_leave(old);
		if (r < 0 && saved != EEXIST)
			return errno = saved, -1;
		fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0 && (errno == ENOTDIR || errno == ELOOP)) {
		/* Say "a link" (an error, logged) rather than "absent" for a planted one. */
		struct stat st;
		if (fstatat(dfd, sub, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			errno = ELOOP;
	}
	return fd;
}

/*
 * The directory that holds `name` (its two-level directory for an object,
 * the cache directory for a local name), opened without following a
 * symbolic link below the cache directory: an fd, or -1 with errno (ENOENT
 * when a level is missing and create is 0; ELOOP or ENOTDIR when a level
 * is a link or a file).  create: make missing levels (the cache's umask).
 */
static int open_parent(struct astra_storage *s, const char *name, int create)
{
	char sub[3];
	int top = open_top(s, create), l1, l2, saved;
	if (top < 0 || !astra_storage_name_ok(name))
		return top;
	sub[0] = name[0];
	sub[1] = name[1];
	sub[2] = '\0';
	l1 = open_sub(top, sub, create);
	saved = errno;
	close(top);
	if (l1 < 0)
		return errno = saved, -1;
	sub[0] = name[2];
	sub[1] = name[3];
	l2 = open_sub(l1, sub, create);
	saved = errno;
	close(l1);
	return l2 < 0 ? (errno = saved, -1) : l2;
}

static void fill_stat(const struct stat *st, struct astra_storage_stat *out)
{
	if (!out)
		return;
	out->size = (long long)st->st_size;
	out->mtime = (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
	out->has_owner = 1;
	out->uid = (unsigned)st->st_uid;
	out->gid = (unsigned)st->st_gid;
	out->mode = (unsigned)st->st_mode;
}

static int absent(int err)
{
	return err == ENOENT || err == ENOTDIR;
}

static int file_get(struct astra_storage *s, const char *name, struct astra_buf *out,
		    struct astra_storage_stat *sst)
{
	struct stat st;
	int dfd, fd, saved;

	if (!name_ok(name))
		return errno = EINVAL, -1;
	dfd = open_parent(s, name, 0);
	if (dfd < 0)
		return absent(errno) ? 0 : -1;
	/* Never follow a planted symlink, never block on a FIFO: only a regular file is read. */
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	saved = errno;
	close(dfd);
	if (fd < 0)
		return absent(saved) ? 0 : (errno = saved, -1);
	if (fstat(fd, &st) < 0) {
		saved = errno;
		close(fd);
		return errno = saved, -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return errno = EISDIR, -1;
	}
	if ((unsigned long long)st.st_size > MAX_OBJECT) {
		close(fd);
		return errno = EFBIG, -1;
	}
	astra_buf_grow(out, (size_t)st.st_size + 1);
	if (astra_buf_read_fd(out, fd, MAX_OBJECT) < 0) {
		saved = errno;
		close(fd);
		return errno = saved, -1;
	}
	close(fd);
	fill_stat(&st, sst);
	return 1;
}

static int file_put(struct astra_storage *s, const char *name, const void *data, size_t len)
{
	int dfd, ret, saved;
	if (!name_ok(name))
		return errno = EINVAL, -1;
	dfd = open_parent(s, name, 1);
	if (dfd < 0)
		return -1;
	/*
	 * Fault injection (tests) hits objects; top-level files (the
	 * statistics, markers) are how the tests observe it.
	 */
	ret = astra_fsio_write_atomic_at(dfd, name, data, len, !astra_storage_name_ok(name));
	saved = errno;
	close(dfd);
	errno = saved;
	return ret;
}

static int file_head(struct astra_storage *s, const char *name, struct astra_storage_stat *sst)
{
	struct stat st;
	int dfd, r, saved;
	if (!name_ok(name))
		return errno = EINVAL, -1;
	dfd = open_parent(s, name, 0);
	if (dfd < 0)
		return absent(errno) ? 0 : -1;
	r = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
	saved = errno;
	close(dfd);
	if (r < 0)
		return absent(saved) ? 0 : (errno = saved, -1);
	if (!S_ISREG(st.st_mode))
		return 0;
	fill_stat(&st, sst);
	return 1;
}

static int file_remove(struct astra_storage *s, const char *name)
{
	int dfd, r, saved;
	if (!name_ok(name))
		return errno = EINVAL, -1;
	dfd = open_parent(s, name, 0);
	if (dfd < 0)
		return absent(errno) ? 0 : -1;
	/* unlinkat removes a link itself, never what it points to. */
	r = unlinkat(dfd, name, 0);
	saved = errno;
	close(dfd);
	return r < 0 && !absent(saved) ? (errno = saved, -1) : 0;
}

static int file_touch(struct astra_storage *s, const char *name)
{
	int dfd, r, saved;
	if (!name_ok(name))
		return errno = EINVAL, -1;
	dfd = open_parent(s, name, 0);
	if (dfd < 0)
		return -1;
	r = utimensat(dfd, name, NULL, AT_SYMLINK_NOFOLLOW);
	saved = errno;
	close(dfd);
	errno = saved;
	return r;
}

static int two_hex(const char *s)
{
	return is_hex(s[0]) && is_hex(s[1]) && !s[2];
}

/*
 * Walk the two-level directories whose names agree with prefix, calling
 * visit(dirfd, name, st, data) for every regular file in them.
 */
typedef int (*visit_fn)(int dirfd, const char *name, const struct stat *st, void *data);

static int walk_level2(int fd1, const char *sub, const char *prefix, visit_fn visit, void *data)
{
	int fd2 = openat(fd1, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (fd2 < 0)
		return 0;
	d = fdopendir(fd2);
	if (!d) {
		close(fd2);
		return 0;
	}
	while (!ret && (de = readdir(d)) != NULL) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		if (fstatat(fd2, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		ret = visit(fd2, de->d_name, &st, data);
	}
	closedir(d);
	return ret;
}

static int walk(const char *dir, const char *prefix, visit_fn visit, void *data)
{
	size_t plen = strlen(prefix);
	DIR *d0, *d1;
	struct dirent *e0, *e1;
	int ret = 0;

	{
		/* The directory itself may be a symlink the user made; what is inside is not followed. */
		int fd0 = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		d0 = fd0 >= 0 ? fdopendir(fd0) : NULL;
		if (!d0) {
			int saved = errno;
			if (fd0 >= 0)
				close(fd0);
			return absent(saved) ? 0 : -1;
		}
	}
	while (!ret && (e0 = readdir(d0)) != NULL) {
		int fd1;
		if (!two_hex(e0->d_name) || (plen >= 1 && e0->d_name[0] != prefix[0]) ||
		    (plen >= 2 && e0->d_name[1] != prefix[1]))
			continue;
		fd1 = openat(dirfd(d0), e0->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd1 < 0)
			continue;
		d1 = fdopendir(fd1);
		if (!d1) {
			close(fd1);
			continue;
		}
		while (!ret && (e1 = readdir(d1)) != NULL) {
			if (!two_hex(e1->d_name) || (plen >= 3 && e1->d_name[0] != prefix[2]) ||
			    (plen >= 4 && e1->d_name[1] != prefix[3]))
				continue;
			ret = walk_level2(dirfd(d1), e1->d_name, prefix, visit, data);
		}
		closedir(d1);
	}
	closedir(d0);
	return ret;
}

struct list_ctx {
	astra_storage_list_fn fn;
	void *data;
};

static int list_visit(int dirfd, const char *name, const struct stat *st, void *data)
{
	struct list_ctx *ctx = data;
	struct astra_storage_stat sst;
	(void)dirfd;
	if (!astra_storage_name_ok(name) || astra_ends_with(name, ".lock"))
		return 0;
	fill_stat(st, &sst);
	return ctx->fn(name, &sst, ctx->data);
}

static int file_list(struct astra_storage *s, const char *prefix, astra_storage_list_fn fn, void *data)
{
	struct list_ctx ctx = { fn, data };
	return walk(s->url, prefix ? prefix : "", list_visit, &ctx);
}

struct sweep_ctx {
	long long before;
	long long removed;
};

static int sweep_visit(int dirfd, const char *name, const struct stat *st, void *data)
{
	struct sweep_ctx *ctx = data;
	if (astra_fsio_is_temp(name)) {
		if ((long long)st->st_mtim.tv_sec < ctx->before && unlinkat(dirfd, name, 0) == 0)
			ctx->removed++;
	} else if (astra_ends_with(name, ".lock")) {
		/*
		 * A lock file nobody holds (its holder finished, or was killed).
		 * Removing it while holding it is safe: lockers check after
		 * locking that the path still names the file they locked.
		 */
		int fd = openat(dirfd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0) {
			if (flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(dirfd, name, 0) == 0)
				ctx->removed++;
			close(fd);
		}
	}
	return 0;
}

static int file_sweep(struct astra_storage *s, long long before, long long *removed)
{
	struct sweep_ctx ctx = { before, 0 };
	int ret = walk(s->url, "", sweep_visit, &ctx);
	/* And the temporary files of the top-level ones (a statistics update killed mid-write). */
	int fd0 = open(s->url, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d0 = fd0 >= 0 ? fdopendir(fd0) : NULL;
	if (d0) {
		struct dirent *de;
		while ((de = readdir(d0)) != NULL) {
			struct stat st;
			if (!astra_fsio_is_temp(de->d_name) ||
			    fstatat(dirfd(d0), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
				continue;
			if ((long long)st.st_mtim.tv_sec < before && unlinkat(dirfd(d0), de->d_name, 0) == 0)
				ctx.removed++;
		}
		closedir(d0);
	} else if (fd0 >= 0) {
		close(fd0);
	}
	*removed += ctx.removed;
	return ret;
}

/* ------------------------------------------------ local-only operations */

int astra_storage_file_present(struct astra_storage *s)
{
	struct stat st;
	return stat(s->url, &st) == 0 && S_ISDIR(st.st_mode);
}

int astra_storage_file_create(struct astra_storage *s)
{
	mode_t old = astra_trust_umask_enter();
	int r = mkdir(s->url, 0777), saved = errno;
	astra_trust_umask_leave(old);
	if (r < 0 && saved != EEXIST)
		return errno = saved, -1;
	return astra_storage_file_present(s) ? 0 : (errno = ENOTDIR, -1);
}

/*
 * Open (creating it) the lock file `name` in directory dfd: never through
 * a symbolic link, never blocking on a FIFO, and only a regular file.
 */
static int open_lock(int dfd, const char *name)
{
	mode_t old = astra_trust_umask_enter();
	int fd = openat(dfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
	int saved = errno;
	astra_trust_umask_leave(old);
	if (fd >= 0) {
		struct stat st;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			return errno = EINVAL, -1;
		}
		return fd;
	}
	return errno = saved, -1;
}

/* Does name in dfd still name the file open as fd? */
static int still_there(int fd, int dfd, const char *name)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int astra_storage_file_lock(struct astra_storage *s, const char *name, double wait, struct astra_file_lock *lk)
{
	double start = astra_now(), pause = 0.005;
	int dfd;

	lk->fd = lk->dir = -1;
	lk->name = NULL;
	if (!name_ok(name) || !astra_ends_with(name, ".lock"))
		return errno = EINVAL, -1;
	dfd = open_parent(s, name, 1);
	if (dfd < 0)
		return -1;
	for (;;) {
		int fd = open_lock(dfd, name), saved;
		if (fd < 0) {
			saved = errno;
			close(dfd);
			return errno = saved, -1;
		}
		if (flock(fd, wait < 0 ? LOCK_EX : LOCK_EX | LOCK_NB) == 0) {
			if (still_there(fd, dfd, name)) {
				lk->fd = fd;
				lk->dir = dfd;
				lk->name = xstrdup(name);
				return 1;
			}
			/* Its holder removed it as we locked it: take the new one. */
			close(fd);
			continue;
		}
		saved = errno;
		close(fd);
		if (saved != EWOULDBLOCK && saved != EINTR) {
			close(dfd);
			return errno = saved, -1;
		}
		if (wait >= 0 && astra_now() - start >= wait) {
			close(dfd);
			return 0;
		}
		/* Poll with backoff: a waiter notices a release within 0.1 s. */
		{
			double left = wait - (astra_now() - start);
			double nap = wait < 0 || pause < left ? pause : left;
			if (nap > 0)
				usleep((useconds_t)(nap * 1e6));
			if (pause < 0.1)
				pause *= 2;
		}
	}
}

void astra_storage_file_unlock(struct astra_file_lock *lk, int remove)
{
	if (lk->fd < 0)
		return;
	/* Unlink while still holding it: lockers check that the name still names what they locked. */
	if (remove)
		unlinkat(lk->dir, lk->name, 0);
	close(lk->fd);
	close(lk->dir);
	free(lk->name);
	lk->fd = lk->dir = -1;
	lk->name = NULL;
}

int astra_storage_file_lock_held(struct astra_storage *s, const char *name)
{
	int dfd, fd, held;
	if (!name_ok(name))
		return errno = EINVAL, -1;
	dfd = open_parent(s, name, 0);
	if (dfd < 0)
		return absent(errno) ? 0 : -1;
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	close(dfd);
	if (fd < 0)
		return absent(errno) ? 0 : -1;
	held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

void astra_storage_file_tidy(struct astra_storage *s)
{
	int fd0 = open(s->url, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d0 = fd0 >= 0 ? fdopendir(fd0) : NULL;
	struct dirent *e0;
	if (!d0) {
		if (fd0 >= 0)
			close(fd0);
		return;
	}
	while ((e0 = readdir(d0)) != NULL) {
		int fd1;
		DIR *d1;
		struct dirent *e1;
		if (!two_hex(e0->d_name))
			continue;
		/* Never follow a symlinked subdirectory out of the cache. */
		fd1 = openat(dirfd(d0), e0->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		d1 = fd1 >= 0 ? fdopendir(fd1) : NULL;
		if (!d1) {
			if (fd1 >= 0)
				close(fd1);
			continue;
		}
		while ((e1 = readdir(d1)) != NULL)
			if (two_hex(e1->d_name))
				unlinkat(dirfd(d1), e1->d_name, AT_REMOVEDIR);
		closedir(d1);
		unlinkat(dirfd(d0), e0->d_name, AT_REMOVEDIR);
	}
	closedir(d0);
}

static void file_close(struct astra_storage *s)
{
	if (!s)
		return;
	free(s->url);
	free(s);
}

static char *file_where(struct astra_storage *s, const char *name)
{
	return path_of(s, name);
}

static const struct astra_storage_ops file_ops = {
	"file", file_get, file_put, file_head, file_remove, file_touch,
	file_list, file_sweep, file_where, file_close,
};

struct astra_storage *astra_storage_file_open(const char *dir)
{
	struct astra_storage *s = xcalloc(1, sizeof(*s));
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	s->ops = &file_ops;
	s->url = xstrndup(dir, n);
	return s;
}
