/*
 * buf.h - a growable, always NUL-terminated byte string (after git's strbuf).
 *
 * Lifecycle: ASTRA_BUF_INIT or astra_buf_init(); astra_buf_release() frees
 * the storage and leaves an empty, reusable buffer; astra_buf_detach() hands
 * the storage to the caller (who frees it).  `buf` is never NULL after init:
 * an empty buffer points at a static "" so it can be printed.
 */
#ifndef ASTRA_BUF_H
#define ASTRA_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "lib/util.h"

struct astra_buf {
	char *buf;
	size_t len;
	size_t alloc;
};

extern char astra_buf_empty[];
#define ASTRA_BUF_INIT { astra_buf_empty, 0, 0 }

void astra_buf_init(struct astra_buf *b, size_t hint);
void astra_buf_release(struct astra_buf *b);
/* Returns the string (caller frees); b is reset to empty. */
char *astra_buf_detach(struct astra_buf *b, size_t *len);
void astra_buf_grow(struct astra_buf *b, size_t extra);
void astra_buf_setlen(struct astra_buf *b, size_t len);
#define astra_buf_reset(b) astra_buf_setlen((b), 0)

void astra_buf_add(struct astra_buf *b, const void *data, size_t len);
void astra_buf_adds(struct astra_buf *b, const char *s);
void astra_buf_addch(struct astra_buf *b, int c);
void astra_buf_addf(struct astra_buf *b, const char *fmt, ...) ASTRA_PRINTF(2, 3);
void astra_buf_vaddf(struct astra_buf *b, const char *fmt, va_list ap);
/* Append s with JSON string escaping (no surrounding quotes). */
void astra_buf_add_json_escaped(struct astra_buf *b, const char *s);
/*
 * Append s escaped for HTML text and attribute values (& < > " ' become
 * entities).  Text from outside (cache entries are untrusted) may hold
 * anything: invalid UTF-8, control characters other than tab, newline and
 * carriage return, and Unicode noncharacters become U+FFFD, so that the
 * page is valid HTML whatever s holds.
 */
void astra_buf_add_html_escaped(struct astra_buf *b, const char *s);
/* Append s with every byte that is not part of well-formed UTF-8 replaced by U+FFFD. */
void astra_buf_add_utf8(struct astra_buf *b, const char *s);
/*
 * Append s for a terminal: control characters (below 0x20, DEL, and the C1
 * controls U+0080..U+009F in UTF-8) become \xNN, so that text from a file
 * (a cache entry's manifest) cannot move the cursor, change colours or
 * send escape sequences to the terminal.  multiline: newlines and tabs
 * stay (a variant's source); otherwise they are escaped too.
 */
void astra_buf_add_printable(struct astra_buf *b, const char *s, int multiline);
/* Append s quoted for a POSIX shell, for logs and reproducer lines. */
void astra_buf_add_shell_quoted(struct astra_buf *b, const char *s);
/* Remove trailing whitespace. */
void astra_buf_rtrim(struct astra_buf *b);
/*
 * Hide the credentials of every URL in b: "scheme://user:password@host"
 * becomes "scheme://user:[REDACTED]@host", and "scheme://token@host"
 * "scheme://[REDACTED]@host" (a token passed as the user name).  What
 * prints or logs settings and URLs goes through this (lib/log.c, the
 * config's --show-config and problems); idempotent.
 */
void astra_buf_redact_userinfo(struct astra_buf *b);

/*
 * Read a whole file into b (appending).  Returns 0, or -1 with errno set.
 * A file larger than max bytes (0 = no limit) fails with EFBIG.
 */
int astra_buf_read_file(struct astra_buf *b, const char *path, size_t max);
/*
 * The same for a file astra-cc does not control (a cache file, a config
 * file): read only when it is a regular file, without blocking - opened
 * with O_NONBLOCK so that a FIFO in its place does not wait for a writer,
 * and with O_NOFOLLOW when nofollow is set.  Anything but a regular file
 * fails with EINVAL before a byte is read.  st (may be NULL) receives the
 * opened file's status, for checks of its owner.
 */
struct stat;
int astra_buf_read_regular(struct astra_buf *b, const char *path, size_t max, int nofollow, struct stat *st);
/* Read everything from fd until EOF (appending); 0 or -1 with errno. */
int astra_buf_read_fd(struct astra_buf *b, int fd, size_t max);

#endif
