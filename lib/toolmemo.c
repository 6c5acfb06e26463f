/*
 * toolmemo.c - remembered tool output (see toolmemo.h).
 *
 * Apart from run.c because it writes files: a memo is a small cache of its
 * own, with the same care as the main cache's files (no symlink followed,
 * no partial file seen), but none of its formats or locks.
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/hash.h"
#include "lib/log.h"
#include "lib/run.h"
#include "lib/toolmemo.h"
#include "lib/trust.h"

/* Read a regular file without following a symlink or blocking on a FIFO. */
static int read_regular(const char *path, struct astra_buf *out)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int ret;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_size > (1 << 20)) {
		close(fd);
		return -1;
	}
	ret = astra_buf_read_fd(out, fd, 1 << 20);
	close(fd);
	return ret;
}

static void remember(const char *dir, const char *path, const struct astra_buf *data)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	const char *slash = strrchr(dir, '/');
	mode_t old = astra_trust_umask_enter();
	int fd;
	/*
	 * With the cache's umask: in a shared cache every user keeps memos
	 * here (each under a name with its uid, read back only when it is its
	 * own), so the directory is as shared as the cache.
	 */
	if (slash && slash != dir) {
		char *parent = xstrndup(dir, (size_t)(slash - dir));
		mkdir(parent, 0777);
		free(parent);
	}
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		astra_trust_umask_leave(old);
		goto fail;
	}
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	astra_trust_umask_leave(old);
	if (fd < 0)
		goto fail;
	if (write(fd, data->buf, data->len) != (ssize_t)data->len) {
		close(fd);
		unlink(tmp);
		goto fail;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		goto fail;
	}
	free(tmp);
	return;
fail:
	/* Remembering is an optimization: failures are only traced. */
	astra_trace(ASTRA_TRACE_CACHE, "cannot remember a tool's output in %s: %s", path, strerror(errno));
	free(tmp);
}

int astra_toolmemo_run(char *const *argv, enum astra_toolmemo_stream stream, const char *extra_id,
		       const char *memo_dir, struct astra_buf *out)
{
	char *bin = astra_which(argv[0]);
	struct stat st;
	struct astra_buf id = ASTRA_BUF_INIT, got = ASTRA_BUF_INIT;
	struct astra_run_opts opts;
	char *memo = NULL;
	size_t i;
	int rc;

	if (!bin || stat(bin, &st) < 0) {
		free(bin);
		return error("cannot find %s", argv[0]);
	}
	if (memo_dir && *memo_dir) {
		astra_buf_addf(&id, "%s%c%lld%c%lld.%09ld%c%llu%c%llu", bin, 0, (long long)st.st_size, 0,
			       (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec, 0,
			       (unsigned long long)st.st_ino, 0, (unsigned long long)st.st_dev);
		for (i = 1; argv[i]; i++)
			astra_buf_addf(&id, "%c%s", 0, argv[i]);
		if (extra_id)
			astra_buf_addf(&id, "%c%s", 0, extra_id);
		memo = xasprintf("%s/%016llx-%u", memo_dir, astra_hash64(id.buf, id.len), (unsigned)geteuid());
		/* The memo starts with the identity it answers for. */
		if (read_regular(memo, &got) == 0 && got.len > id.len + 1 && !memcmp(got.buf, id.buf, id.len) &&
		    got.buf[id.len] == '\n') {
			astra_buf_add(out, got.buf + id.len + 1, got.len - id.len - 1);
			astra_buf_release(&got);
			astra_buf_release(&id);
			free(memo);
			free(bin);
			return 0;
		}
		astra_buf_reset(&got);
	}

	memset(&opts, 0, sizeof(opts));
	if (stream == ASTRA_TOOLMEMO_STDERR)
		opts.err = &got;
	else
		opts.out = &got;
	opts.quiet = 1;
	opts.timeout = 60;
	{
		char **av;
		for (i = 0; argv[i]; i++)
			;
		av = xcalloc(i + 1, sizeof(*av));
		memcpy(av, argv, i * sizeof(*av));
		av[0] = bin;
		rc = astra_run(av, &opts);
		free(av);
	}
	if (rc != 0 || !got.len) {
		error("%s failed (status %d)", bin, rc);
		astra_buf_release(&got);
		astra_buf_release(&id);
		free(memo);
		free(bin);
		return -1;
	}
	if (memo) {
		struct astra_buf file = ASTRA_BUF_INIT;
		astra_buf_add(&file, id.buf, id.len);
		astra_buf_addch(&file, '\n');
		astra_buf_add(&file, got.buf, got.len);
		remember(memo_dir, memo, &file);
		astra_buf_release(&file);
	}
	astra_buf_add(out, got.buf, got.len);
	astra_buf_release(&got);
	astra_buf_release(&id);
	free(memo);
	free(bin);
	return 0;
}

int astra_toolmemo_file_hash(const char *path, const char *memo_dir, struct astra_buf *out)
{
	struct astra_buf id = ASTRA_BUF_INIT, got = ASTRA_BUF_INIT;
	struct astra_digest d;
	struct stat st;
	char *memo = NULL;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return error("cannot read %s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
	}
	/*
	 * The memo answers for this very file as it is: its inode, size and
	 * both times (the change time cannot be set back by `touch`), so a
	 * file rewritten in place is hashed again.
	 */
	if (memo_dir && *memo_dir) {
		astra_buf_addf(&id, "content%c%s%c%lld%c%lld.%09ld%c%lld.%09ld%c%llu%c%llu", 0, path, 0,
			       (long long)st.st_size, 0, (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec, 0,
			       (long long)st.st_ctim.tv_sec, (long)st.st_ctim.tv_nsec, 0,
			       (unsigned long long)st.st_ino, 0, (unsigned long long)st.st_dev);
		memo = xasprintf("%s/%016llx-%u", memo_dir, astra_hash64(id.buf, id.len), (unsigned)geteuid());
		if (read_regular(memo, &got) == 0 && got.len == id.len + 1 + 32 && !memcmp(got.buf, id.buf, id.len) &&
		    got.buf[id.len] == '\n') {
			astra_buf_add(out, got.buf + id.len + 1, 32);
			goto done;
		}
		astra_buf_reset(&got);
	}
	if (astra_buf_read_fd(&got, fd, 1 << 30) < 0) {
		close(fd);
		astra_buf_release(&got);
		astra_buf_release(&id);
		free(memo);
		return error("cannot read %s: %s", path, strerror(errno));
	}
	astra_hash128(got.buf, got.len, &d);
	astra_buf_add(out, d.hex, 32);
	if (memo) {
		struct astra_buf file = ASTRA_BUF_INIT;
		astra_buf_add(&file, id.buf, id.len);
		astra_buf_addch(&file, '\n');
		astra_buf_add(&file, d.hex, 32);
		remember(memo_dir, memo, &file);
		astra_buf_release(&file);
	}
done:
	close(fd);
	astra_buf_release(&got);
	astra_buf_release(&id);
	free(memo);
	return 0;
}
