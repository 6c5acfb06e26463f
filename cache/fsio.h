/*
 * fsio.h - the file-system primitives the cache is built on: atomic
 * writes, directory creation, failure classification, fault injection.
 *
 * Every file the cache writes (entries, transcripts, the warmup queue,
 * device ceilings) goes through astra_fsio_write_atomic(): the data is
 * written to a temporary file in the destination directory and renamed over
 * the destination, so a reader sees the old file, the new file or nothing,
 * never a part.  Nothing is fsync'ed: after a power loss a renamed file may
 * be empty or garbage, and that is fine because every reader checks length,
 * format version and checksum and treats a bad file as a miss.
 *
 * These live apart from the storage backend because the warmup queue and
 * the device ceilings use them too, and because fault injection (SQLite
 * style) must sit under every write to be testable.
 *
 * Fault injection: the environment variable ASTRA_CC_FAULT, read once per
 * process, is a comma-separated list of
 *   enospc[:N]   writes fail with ENOSPC after N bytes (default 0)
 *   erofs        creating a temporary file fails with EROFS
 *   eacces       creating a temporary file fails with EACCES
 *   eio[:N]      writes fail with EIO after N bytes
 *   kill:N       the process SIGKILLs itself after N bytes of a write
 *   kill:rename  ... just before rename(2);  kill:renamed  just after it
 *   chunk:N      write in pieces of N bytes (default: all at once)
 *   delay:USEC   sleep this long before each piece
 * It is for the test suite (a full or read-only file system, kill -9 at
 * chosen points of a write); it has no other use.
 */
#ifndef ASTRA_FSIO_H
#define ASTRA_FSIO_H

#include <stddef.h>

/* How a failed file operation is counted (see astra_fsio_count). */
enum astra_fsio_class {
	ASTRA_FSIO_UNWRITABLE = 1, /* EACCES, EPERM, EROFS */
	ASTRA_FSIO_FULL,           /* ENOSPC, EDQUOT, EFBIG */
	ASTRA_FSIO_IO,             /* anything else */
};

enum astra_fsio_class astra_fsio_classify(int err);
/* Add one to the statistics counter for err's class. */
void astra_fsio_count(int err);

/*
 * mkdir -p (mode 0777 less the cache's umask, astra_trust_umask).  Returns
 * 0, or -1 with errno set.  An existing directory is success.
 */
int astra_fsio_mkdirs(const char *dir);

/*
 * Atomically replace path with len bytes of data: a temporary file
 * "<path>.tmp.<pid>.<n>" in the same directory, created exclusively and
 * never through a symbolic link (O_CREAT|O_EXCL|O_NOFOLLOW) with mode 0666
 * less the cache's umask (astra_trust_umask: the `umask` setting makes a
 * group-shared cache), then rename(2), which replaces whatever is at path
 * (a planted symbolic link included) and never writes through it.  Missing
 * parent directories are created.  Returns 0, or -1 with errno set and
 * nothing left behind (unless the process is killed, in which case the
 * temporary file is swept later by cleanup).  Does not log.
 */
int astra_fsio_write_atomic(const char *path, const void *data, size_t len);

/*
 * The same for name in the directory open as dirfd (storage-file.c opens
 * the directories of the cache without following symbolic links, then
 * writes relative to them).  exempt: no fault injection (see below).
 */
int astra_fsio_write_atomic_at(int dirfd, const char *name, const void *data, size_t len, int exempt);

/*
 * The same without fault injection: for the bookkeeping files through
 * which the tests observe what the faults did (the statistics).
 */
int astra_fsio_write_atomic_exempt(const char *path, const void *data, size_t len);

/* Is this file name one of astra_fsio_write_atomic()'s temporary files? */
int astra_fsio_is_temp(const char *name);

/* Forget the parsed ASTRA_CC_FAULT (tests that change it in-process). */
void astra_fsio_reset_faults(void);

#endif
