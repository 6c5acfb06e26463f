/*
 * util.c - allocation helpers and the error verbs (see util.h).
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "lib/util.h"

const char *astra_progname = "astra-cc";
void (*astra_die_hook)(const char *msg);

static ASTRA_NORETURN void oom(size_t n)
{
	/* No allocation here: print with what is on the stack and leave. */
	fprintf(stderr, "%s: out of memory (%zu bytes)\n", astra_progname, n);
	if (astra_die_hook)
		astra_die_hook("out of memory");
	exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		oom(strlen(fmt));
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void *astra_grow(void *p, size_t elt, size_t nr, size_t *alloc)
{
	size_t n;
	if (nr <= *alloc)
		return p;
	n = *alloc ? *alloc : 8;
	while (n < nr)
		n = n * 3 / 2 + 8;
	if (n > (size_t)-1 / elt)
		oom((size_t)-1);
	*alloc = n;
	return xrealloc(p, n * elt);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	astra_vlog(ASTRA_LOG_ERROR, fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	astra_vlog(ASTRA_LOG_WARNING, fmt, ap);
	va_end(ap);
}

static ASTRA_NORETURN void vdie(int err, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (err) {
		size_t l = strlen(msg);
		snprintf(msg + l, sizeof(msg) - l, ": %s", strerror(err));
	}
	astra_log(ASTRA_LOG_ERROR, "fatal: %s", msg);
	if (astra_die_hook)
		astra_die_hook(msg);
	fprintf(stderr, "%s: fatal: %s\n", astra_progname, msg);
	exit(3);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdie(0, fmt, ap);
}

void die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;
	va_start(ap, fmt);
	vdie(err, fmt, ap);
}

double astra_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

long long astra_time(void)
{
	return (long long)time(NULL);
}

int astra_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int astra_ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

const char *astra_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}
