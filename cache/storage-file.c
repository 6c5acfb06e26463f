/*
 * storage-file.c - the local directory backend of the storage interface
 * (see storage.h).
 *
 * Layout: dir/<name[0..1]>/<name[2..3]>/<name>, i.e. two levels of hex
 * directories taken from the key, as ccache does, so no directory holds
 * more than a few hundred files even with millions of entries.  Writes go
 * through astra_fsio_write_atomic (temp file + rename).  The last use of an
 * object is its mtime: a hit sets it (touch) instead of rewriting the entry,
 * so reading never races with writing.
 */
#include "autoconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "astra-cc/util.h"
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

char *astra_storage_file_path(const char *dir, const char *name)
{
	return xasprintf("%s/%.2s/%.2s/%s", dir, name, name + 2, name);
}

static char *path_of(struct astra_storage *s, const char *name)
{
	return astra_storage_file_path(s->url, name);
}

static void fill_stat(const struct stat *st, struct astra_storage_stat *out)
{
	if (!out)
		return;
	out->size = (long long)st->st_size;
	out->mtime = (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

static int absent(int err)
{
	return err == ENOENT || err == ENOTDIR;
}

static int file_get(struct astra_storage *s, const char *name, struct astra_buf *out,
		    struct astra_storage_stat *sst)
{
	char *path;
	struct stat st;
	int fd, saved;

	if (!astra_storage_name_ok(name))
		return errno = EINVAL, -1;
	path = path_of(s, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return absent(errno) ? 0 : -1;
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
	char *path;
	int ret;
	if (!astra_storage_name_ok(name))
		return errno = EINVAL, -1;
	path = path_of(s, name);
	ret = astra_fsio_write_atomic(path, data, len);
	free(path);
	return ret;
}

static int file_head(struct astra_storage *s, const char *name, struct astra_storage_stat *sst)
{
	char *path;
	struct stat st;
	int r;
	if (!astra_storage_name_ok(name))
		return errno = EINVAL, -1;
	path = path_of(s, name);
	r = stat(path, &st);
	free(path);
	if (r < 0)
		return absent(errno) ? 0 : -1;
	if (!S_ISREG(st.st_mode))
		return 0;
	fill_stat(&st, sst);
	return 1;
}

static int file_remove(struct astra_storage *s, const char *name)
{
	char *path;
	int r;
	if (!astra_storage_name_ok(name))
		return errno = EINVAL, -1;
	path = path_of(s, name);
	r = unlink(path);
	free(path);
	return r < 0 && !absent(errno) ? -1 : 0;
}

static int file_touch(struct astra_storage *s, const char *name)
{
	char *path;
	int r;
	if (!astra_storage_name_ok(name))
		return errno = EINVAL, -1;
	path = path_of(s, name);
	r = utimensat(AT_FDCWD, path, NULL, 0);
	free(path);
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
	int fd2 = openat(fd1, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

	d0 = opendir(dir);
	if (!d0)
		return absent(errno) ? 0 : -1;
	while (!ret && (e0 = readdir(d0)) != NULL) {
		int fd1;
		if (!two_hex(e0->d_name) || (plen >= 1 && e0->d_name[0] != prefix[0]) ||
		    (plen >= 2 && e0->d_name[1] != prefix[1]))
			continue;
		fd1 = openat(dirfd(d0), e0->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
	*removed += ctx.removed;
	return ret;
}

static void file_close(struct astra_storage *s)
{
	if (!s)
		return;
	free(s->url);
	free(s);
}

static const struct astra_storage_ops file_ops = {
	"file", file_get, file_put, file_head, file_remove, file_touch,
	file_list, file_sweep, file_close,
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
