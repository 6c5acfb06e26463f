/*
 * fsio.c - atomic writes, mkdir -p, failure classes, fault injection
 * (see fsio.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/run.h"
#include "lib/trust.h"
#include "lib/util.h"
#include "cache/fsio.h"
#include "cache/stats.h"

enum astra_fsio_class astra_fsio_classify(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
	case EROFS:
		return ASTRA_FSIO_UNWRITABLE;
	case ENOSPC:
	case EDQUOT:
	case EFBIG:
		return ASTRA_FSIO_FULL;
	default:
		return ASTRA_FSIO_IO;
	}
}

void astra_fsio_count(int err)
{
	switch (astra_fsio_classify(err)) {
	case ASTRA_FSIO_UNWRITABLE: astra_stats_inc(ASTRA_STAT_CACHE_UNWRITABLE); break;
	case ASTRA_FSIO_FULL: astra_stats_inc(ASTRA_STAT_CACHE_FULL); break;
	case ASTRA_FSIO_IO: astra_stats_inc(ASTRA_STAT_CACHE_IO_ERRORS); break;
	}
}

/* ------------------------------------------------------------ faults */

static struct faults {
	int parsed;
	int open_errno;          /* fail creating the temp file */
	int write_errno;         /* fail writes after write_after bytes */
	long long write_after;
	long long kill_after;    /* SIGKILL after this many bytes; -1: never */
	int kill_rename;         /* SIGKILL before rename */
	int kill_renamed;        /* SIGKILL after rename */
	size_t chunk;
	long delay_us;
} faults;

void astra_fsio_reset_faults(void)
{
	memset(&faults, 0, sizeof(faults));
}

static long long num(const char *s, long long def)
{
	char *end;
	long long v;
	if (!s)
		return def;
	v = strtoll(s, &end, 10);
	return end == s || v < 0 ? def : v;
}

static void parse_faults(void)
{
	const char *env = astra_getenv("ASTRA_CC_FAULT");
	char *copy, *tok, *save = NULL;

	faults.parsed = 1;
	faults.kill_after = -1;
	if (!env)
		return;
	copy = xstrdup(env);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *arg = strchr(tok, ':');
		if (arg)
			*arg++ = '\0';
		if (!strcmp(tok, "enospc") || !strcmp(tok, "eio")) {
			faults.write_errno = tok[1] == 'n' ? ENOSPC : EIO;
			faults.write_after = num(arg, 0);
		} else if (!strcmp(tok, "erofs")) {
			faults.open_errno = EROFS;
		} else if (!strcmp(tok, "eacces")) {
			faults.open_errno = EACCES;
		} else if (!strcmp(tok, "kill")) {
			if (arg && !strcmp(arg, "rename"))
				faults.kill_rename = 1;
			else if (arg && !strcmp(arg, "renamed"))
				faults.kill_renamed = 1;
			else
				faults.kill_after = num(arg, 0);
		} else if (!strcmp(tok, "chunk")) {
			faults.chunk = (size_t)num(arg, 0);
		} else if (!strcmp(tok, "delay")) {
			faults.delay_us = (long)num(arg, 0);
		}
	}
	free(copy);
}

static struct faults *get_faults(void)
{
	if (!faults.parsed)
		parse_faults();
	return &faults;
}

/* ------------------------------------------------------------ files */

int astra_fsio_mkdirs(const char *dir)
{
	char *p;
	size_t i, n = strlen(dir);
	struct stat st;
	mode_t old;
	int ret = 0;

	if (!n)
		return errno = ENOENT, -1;
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
	p = xstrdup(dir);
	old = astra_trust_umask_enter();
	for (i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			ret = -1;
			break;
		}
		if (i < n)
			p[i] = '/';
	}
	{
		int saved = errno;
		astra_trust_umask_leave(old);
		free(p);
		errno = saved;
	}
	if (ret < 0)
		return -1;
	if (stat(dir, &st) < 0)
		return -1;
	return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
}

int astra_fsio_is_temp(const char *name)
{
	return strstr(name, ".tmp.") != NULL;
}

/*
 * Create a fresh temporary file beside name in directory dirfd: exclusive,
 * never through a symbolic link, with the cache's umask.  Returns the fd
 * and its name.
 */
static int create_temp(int dirfd, const char *name, char **tmp_out, const struct faults *f)
{
	static unsigned counter;
	int tries;

	if (f->open_errno)
		return errno = f->open_errno, -1;
	for (tries = 0; tries < 100; tries++) {
		char *tmp = xasprintf("%s.tmp.%ld.%u", name, (long)getpid(), counter++);
		mode_t old = astra_trust_umask_enter();
		int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		int saved = errno;
		astra_trust_umask_leave(old);
		if (fd >= 0) {
			*tmp_out = tmp;
			return fd;
		}
		free(tmp);
		if (saved != EEXIST)
			return errno = saved, -1;
	}
	return errno = EEXIST, -1;
}

static int write_all(int fd, const char *data, size_t len, const struct faults *f)
{
	size_t done = 0;

	while (done < len) {
		size_t n = len - done;
		ssize_t w;
		if (f->chunk && n > f->chunk)
			n = f->chunk;
		if (f->delay_us)
			usleep((useconds_t)f->delay_us);
		if (f->kill_after >= 0 && (long long)(done + n) > f->kill_after) {
			/* Write up to the kill point, then die as kill -9 would. */
			size_t part = (size_t)(f->kill_after - (long long)done);
			if (part && write(fd, data + done, part) < 0)
				return -1;
			raise(SIGKILL);
		}
		if (f->write_errno && (long long)(done + n) > f->write_after) {
			size_t part = f->write_after > (long long)done ? (size_t)(f->write_after - (long long)done) : 0;
			if (part && write(fd, data + done, part) < 0)
				return -1;
			return errno = f->write_errno, -1;
		}
		w = write(fd, data + done, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)w;
	}
	return 0;
}

static int write_at(int dirfd, const char *name, const void *data, size_t len, const struct faults *f)
{
	char *tmp = NULL;
	int fd, saved;

	fd = create_temp(dirfd, name, &tmp, f);
	if (fd < 0)
		return -1;
	if (write_all(fd, data, len, f) < 0) {
		saved = errno;
		close(fd);
		goto fail;
	}
	/* close() reports delayed write errors (NFS, quotas). */
	if (close(fd) < 0) {
		saved = errno;
		goto fail;
	}
	if (f->kill_rename)
		raise(SIGKILL);
	/* rename(2) replaces a symbolic link at name; it never writes through one. */
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		saved = errno;
		goto fail;
	}
	if (f->kill_renamed)
		raise(SIGKILL);
	free(tmp);
	return 0;
fail:
	unlinkat(dirfd, tmp, 0);
	free(tmp);
	errno = saved;
	return -1;
}

static int write_atomic(const char *path, const void *data, size_t len, const struct faults *f)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? (slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path))) : xstrdup(".");
	const char *name = slash ? slash + 1 : path;
	int dfd, ret, saved;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 && errno == ENOENT && astra_fsio_mkdirs(dir) == 0)
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		saved = errno;
		free(dir);
		return errno = saved, -1;
	}
	ret = write_at(dfd, name, data, len, f);
	saved = errno;
	close(dfd);
	free(dir);
	errno = saved;
	return ret;
}

int astra_fsio_write_atomic(const char *path, const void *data, size_t len)
{
	return write_atomic(path, data, len, get_faults());
}

int astra_fsio_write_atomic_exempt(const char *path, const void *data, size_t len)
{
	static const struct faults none = { .kill_after = -1 };
	return write_atomic(path, data, len, &none);
}

int astra_fsio_write_atomic_at(int dirfd, const char *name, const void *data, size_t len, int exempt)
{
	static const struct faults none = { .kill_after = -1 };
	return write_at(dirfd, name, data, len, exempt ? &none : get_faults());
}
