/*
 * buf.c - the growable string (see buf.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"

char astra_buf_empty[1];

void astra_buf_init(struct astra_buf *b, size_t hint)
{
	b->buf = astra_buf_empty;
	b->len = b->alloc = 0;
	if (hint)
		astra_buf_grow(b, hint);
}

void astra_buf_release(struct astra_buf *b)
{
	if (b->alloc)
		free(b->buf);
	astra_buf_init(b, 0);
}

char *astra_buf_detach(struct astra_buf *b, size_t *len)
{
	char *s;
	if (!b->alloc)
		astra_buf_grow(b, 0);
	s = b->buf;
	if (len)
		*len = b->len;
	astra_buf_init(b, 0);
	return s;
}

void astra_buf_grow(struct astra_buf *b, size_t extra)
{
	int fresh = !b->alloc;
	if (b->len + extra + 1 < b->len)
		die("string too long");
	if (fresh)
		b->buf = NULL;
	ALLOC_GROW(b->buf, b->len + extra + 1, b->alloc);
	if (fresh)
		b->buf[0] = '\0';
}

void astra_buf_setlen(struct astra_buf *b, size_t len)
{
	if (!b->alloc && !len)
		return;
	if (len > b->len)
		die("astra_buf_setlen beyond the end");
	b->len = len;
	b->buf[len] = '\0';
}

void astra_buf_add(struct astra_buf *b, const void *data, size_t len)
{
	astra_buf_grow(b, len);
	memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
}

void astra_buf_adds(struct astra_buf *b, const char *s)
{
	astra_buf_add(b, s, strlen(s));
}

void astra_buf_addch(struct astra_buf *b, int c)
{
	astra_buf_grow(b, 1);
	b->buf[b->len++] = (char)c;
	b->buf[b->len] = '\0';
}

void astra_buf_vaddf(struct astra_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	astra_buf_grow(b, 64);
	va_copy(cp, ap);
	n = vsnprintf(b->buf + b->len, b->alloc - b->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		die("vsnprintf failed");
	if ((size_t)n >= b->alloc - b->len) {
		astra_buf_grow(b, (size_t)n);
		n = vsnprintf(b->buf + b->len, b->alloc - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void astra_buf_addf(struct astra_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	astra_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void astra_buf_add_json_escaped(struct astra_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '"': astra_buf_adds(b, "\\\""); break;
		case '\\': astra_buf_adds(b, "\\\\"); break;
		case '\n': astra_buf_adds(b, "\\n"); break;
		case '\r': astra_buf_adds(b, "\\r"); break;
		case '\t': astra_buf_adds(b, "\\t"); break;
		default:
			if (c < 0x20)
				astra_buf_addf(b, "\\u%04x", c);
			else
				astra_buf_addch(b, c);
		}
	}
}

/* Length of the well-formed UTF-8 sequence at s (its code point in *cp), or 0. */
static size_t utf8_seq(const unsigned char *s, unsigned *cp)
{
	size_t n, i;
	unsigned c = s[0], min;
	if (c < 0x80)
		return *cp = c, 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, c &= 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, c &= 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return *cp = c, n;
}

void astra_buf_add_html_escaped(struct astra_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned cp = 0;
		size_t n = utf8_seq(p, &cp);
		switch (n ? cp : 0xfffd) {
		case '&': astra_buf_adds(b, "&amp;"); break;
		case '<': astra_buf_adds(b, "&lt;"); break;
		case '>': astra_buf_adds(b, "&gt;"); break;
		case '"': astra_buf_adds(b, "&quot;"); break;
		case '\'': astra_buf_adds(b, "&#39;"); break;
		default:
			if (!n || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || (cp >= 0x7f && cp <= 0x9f) ||
			    (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe)
				astra_buf_adds(b, "\xef\xbf\xbd"); /* U+FFFD */
			else
				astra_buf_add(b, p, n);
		}
		p += n ? n : 1;
	}
}

void astra_buf_add_utf8(struct astra_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned cp;
		size_t n = utf8_seq(p, &cp);
		if (n)
			astra_buf_add(b, p, n);
		else
			astra_buf_adds(b, "\xef\xbf\xbd");
		p += n ? n : 1;
	}
}

void astra_buf_add_printable(struct astra_buf *b, const char *s, int multiline)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (multiline && (c == '\n' || c == '\t'))
			astra_buf_addch(b, (char)c);
		else if (c < 0x20 || c == 0x7f)
			astra_buf_addf(b, "\\x%02x", c);
		else if (c == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f)
			astra_buf_addf(b, "\\x%02x", (unsigned char)*++s);
		else
			astra_buf_addch(b, (char)c);
	}
}

void astra_buf_add_shell_quoted(struct astra_buf *b, const char *s)
{
	if (*s && !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=.,/:@%")]) {
		astra_buf_adds(b, s);
		return;
	}
	astra_buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			astra_buf_adds(b, "'\\''");
		else
			astra_buf_addch(b, *s);
	}
	astra_buf_addch(b, '\'');
}

void astra_buf_rtrim(struct astra_buf *b)
{
	while (b->len && strchr(" \t\r\n", b->buf[b->len - 1]))
		b->len--;
	if (b->alloc)
		b->buf[b->len] = '\0';
}

#define REDACTED "[REDACTED]"

/* Does c end a URL's authority (host part) in running text? */
static int ends_authority(int c)
{
	return c == '\0' || c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       c == '"' || c == '\'' || c == '\\' || c == '`' || c == '<' || c == '>' || c == '|';
}

void astra_buf_redact_userinfo(struct astra_buf *b)
{
	struct astra_buf out = ASTRA_BUF_INIT;
	size_t i = 0, from = 0;
	const char *hit;
	if (!b->len || !memchr(b->buf, '@', b->len))
		return;
	while ((hit = memmem(b->buf + i, b->len - i, "://", 3)) != NULL) {
		size_t start = (size_t)(hit - b->buf) + 3, end = start, at = 0, colon = 0;
		int have_at = 0, have_colon = 0;
		while (end < b->len && !ends_authority((unsigned char)b->buf[end])) {
			if (b->buf[end] == '@') {
				at = end;
				have_at = 1;
			}
			end++;
		}
		i = end > start ? end : start;
		if (!have_at || at == start)
			continue;
		/* The user name ends at the first colon before the (last) @; the password follows it. */
		for (colon = start; colon < at; colon++)
			if (b->buf[colon] == ':') {
				have_colon = 1;
				break;
			}
		if (have_colon && at - colon - 1 == strlen(REDACTED) && !memcmp(b->buf + colon + 1, REDACTED, at - colon - 1))
			continue;
		if (!have_colon && at - start == strlen(REDACTED) && !memcmp(b->buf + start, REDACTED, at - start))
			continue;
		astra_buf_add(&out, b->buf + from, (have_colon ? colon + 1 : start) - from);
		astra_buf_adds(&out, REDACTED);
		from = at;
	}
	if (!out.alloc)
		return;
	astra_buf_add(&out, b->buf + from, b->len - from);
	astra_buf_release(b);
	*b = out;
}

int astra_buf_read_fd(struct astra_buf *b, int fd, size_t max)
{
	size_t start = b->len;
	for (;;) {
		ssize_t n;
		astra_buf_grow(b, 8192);
		n = read(fd, b->buf + b->len, b->alloc - b->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
		b->buf[b->len] = '\0';
		if (max && b->len - start > max) {
			errno = EFBIG;
			return -1;
		}
	}
	return 0;
}

int astra_buf_read_file(struct astra_buf *b, const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret, saved;
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if (max && (size_t)st.st_size > max) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
		astra_buf_grow(b, (size_t)st.st_size);
	}
	ret = astra_buf_read_fd(b, fd, max);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

int astra_buf_read_regular(struct astra_buf *b, const char *path, size_t max, int nofollow, struct stat *st_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
	int ret, saved;
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		saved = fstat(fd, &st) < 0 ? errno : EINVAL;
		close(fd);
		errno = saved;
		return -1;
	}
	if (st_out)
		*st_out = st;
	if (max && (size_t)st.st_size > max) {
		close(fd);
		errno = EFBIG;
		return -1;
	}
	astra_buf_grow(b, (size_t)st.st_size);
	ret = astra_buf_read_fd(b, fd, max);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}
