/*
 * toolmemo.h - the output of a tool, run once per binary.
 *
 * `nvcc --version` and the host compiler's `-E -v` report do not change
 * while the binary does not, and running them costs tens of milliseconds
 * per compile.  Their output is remembered in a directory, one file per
 * (binary, arguments), keyed by the binary's resolved path, size,
 * modification time, inode and device: replacing or touching the binary
 * asks it again.
 */
#ifndef ASTRA_TOOLMEMO_H
#define ASTRA_TOOLMEMO_H

#include "lib/buf.h"

enum astra_toolmemo_stream {
	ASTRA_TOOLMEMO_STDOUT = 1,
	ASTRA_TOOLMEMO_STDERR = 2,
};

/*
 * Run argv (argv[0] a path or a name looked up in PATH) and append the
 * captured stream (stdout or stderr) to out; when memo_dir is not NULL,
 * answer from <memo_dir>/<hash> when present and remember the answer
 * there otherwise (created with O_EXCL|O_NOFOLLOW, renamed into place;
 * only a regular file owned by this user is read back).  extra_id (may
 * be NULL) is added to the identity: what else the answer depends on,
 * such as environment variables the tool reads.  The tool must exit 0 and say
 * something.  Returns 0, or -1 (logged) when it cannot run or fails.
 */
int astra_toolmemo_run(char *const *argv, enum astra_toolmemo_stream stream, const char *extra_id,
		       const char *memo_dir, struct astra_buf *out);

/*
 * Append the content hash of the regular file at path (32 hex digits,
 * XXH3-128) to out.  With memo_dir, the hash is remembered there per
 * (path, size, modification and change times, inode, device), so a file
 * is read once, not on every compile (the host compiler's identity in the
 * key, front/includes.h).  Returns 0, or -1 (logged).
 */
int astra_toolmemo_file_hash(const char *path, const char *memo_dir, struct astra_buf *out);

#endif
