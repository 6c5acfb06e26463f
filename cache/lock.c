/*
 * lock.c - per-(key, cc) optimization locks with flock(2) (see lock.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "astra-cc/log.h"
#include "cache/fsio.h"
#include "cache/lock.h"
#include "cache/stats.h"

static char *lock_path(struct astra_cache *c, const char *key, int cc)
{
	char *name = xasprintf("%s-%d.lock", key, cc);
	char *path = astra_storage_file_path(astra_cache_dir(c), name);
	free(name);
	return path;
}

/* Open (creating it and its directories) the lock file. */
static int open_lock(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0 && errno == ENOENT) {
		char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
		if (astra_fsio_mkdirs(dir) == 0)
			fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
		free(dir);
	}
	return fd;
}

/* Does path still name the file open as fd? */
static int still_there(int fd, const char *path)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int astra_cache_lock(struct astra_cache *c, const char *key, int cc, double wait,
		     struct astra_cache_lock *lk)
{
	double start = astra_now(), pause = 0.005;
	char *path;

	lk->fd = -1;
	lk->path = NULL;
	if (!astra_key_ok(key) || cc <= 0)
		return error("cache lock with an invalid key or architecture");
	path = lock_path(c, key, cc);
	for (;;) {
		int fd = open_lock(path);
		if (fd < 0) {
			warning("cannot create the lock %s: %s", path, strerror(errno));
			astra_fsio_count(errno);
			free(path);
			return -1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			if (still_there(fd, path)) {
				struct astra_buf b = ASTRA_BUF_INIT;
				char host[256] = "";
				/* For people looking at a lock: who holds it. */
				gethostname(host, sizeof(host) - 1);
				astra_buf_addf(&b, "pid %ld on %s since %lld\n", (long)getpid(), host, astra_time());
				if (ftruncate(fd, 0) == 0 && pwrite(fd, b.buf, b.len, 0) < 0) {
					/* Informational only. */
				}
				astra_buf_release(&b);
				lk->fd = fd;
				lk->path = path;
				astra_trace(ASTRA_TRACE_CACHE, "locked %s sm_%d", key, cc);
				return 1;
			}
			/* Its holder removed it as we locked it: take the new one. */
			close(fd);
			continue;
		}
		close(fd);
		if (errno != EWOULDBLOCK && errno != EINTR) {
			warning("cannot lock %s: %s", path, strerror(errno));
			astra_fsio_count(errno);
			free(path);
			return -1;
		}
		if (astra_now() - start >= wait) {
			astra_trace(ASTRA_TRACE_CACHE, "gave up waiting for %s after %.1f s", path, wait);
			astra_stats_inc(ASTRA_STAT_LOCK_TIMEOUTS);
			free(path);
			return 0;
		}
		/* Poll with backoff: a waiter notices a release within 0.1 s. */
		{
			double left = wait - (astra_now() - start);
			double nap = pause < left ? pause : left;
			if (nap > 0)
				usleep((useconds_t)(nap * 1e6));
			if (pause < 0.1)
				pause *= 2;
		}
	}
}

void astra_cache_unlock(struct astra_cache_lock *lk)
{
	if (lk->fd < 0)
		return;
	/* Unlink while still holding it: see the comment in lock.h. */
	unlink(lk->path);
	close(lk->fd);
	free(lk->path);
	lk->fd = -1;
	lk->path = NULL;
}

int astra_cache_lock_held(struct astra_cache *c, const char *key, int cc)
{
	char *path = lock_path(c, key, cc);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), held;
	free(path);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}
