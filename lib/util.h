/*
 * util.h - allocation that never returns NULL, and the error verbs.
 *
 * Every allocation in astra-cc goes through these helpers: running out of
 * memory is not a condition astra-cc can recover from in a useful way, so it
 * dies, and the driver's top level has already arranged for that to end in a
 * plain nvcc run (see main.c).  The error verbs follow git: error() logs and
 * returns -1 so that callers write `return error(...)`; die() is only for the
 * top level and for impossible states.
 */
#ifndef ASTRA_UTIL_H
#define ASTRA_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ASTRA_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define ASTRA_NORETURN __attribute__((noreturn))

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a newly allocated formatted string; the caller frees it. */
char *xasprintf(const char *fmt, ...) ASTRA_PRINTF(1, 2);
char *xvasprintf(const char *fmt, va_list ap);

/* Grow *p (an array of *alloc elements of size elt) to hold at least nr. */
void *astra_grow(void *p, size_t elt, size_t nr, size_t *alloc);
#define ALLOC_GROW(p, nr, alloc) ((p) = astra_grow((p), sizeof(*(p)), (nr), &(alloc)))

/*
 * The program name used in messages ("astra-cc").  Messages go to the log
 * (see log.h), never to stderr, unless the user asked (strict mode, or one
 * of astra-cc's own commands such as --show-config).
 */
extern const char *astra_progname;

/*
 * error(): log "error: ..." and return -1.  warning(): log "warning: ...".
 * die(): print to stderr and exit(3); the driver installs a hook that turns
 * a die() during a wrapped compile into a plain nvcc run instead.
 */
int error(const char *fmt, ...) ASTRA_PRINTF(1, 2);
void warning(const char *fmt, ...) ASTRA_PRINTF(1, 2);
ASTRA_NORETURN void die(const char *fmt, ...) ASTRA_PRINTF(1, 2);
ASTRA_NORETURN void die_errno(const char *fmt, ...) ASTRA_PRINTF(1, 2);
/* Called by die() before exiting; it may not return (e.g. exec nvcc). */
extern void (*astra_die_hook)(const char *msg);

/* Monotonic clock in seconds. */
double astra_now(void);
/* Wall-clock seconds since the epoch. */
long long astra_time(void);

int astra_starts_with(const char *s, const char *prefix);
int astra_ends_with(const char *s, const char *suffix);
/* Pointer to the last path component of path (inside path). */
const char *astra_basename(const char *path);

/* Last: unsafe library calls become compile errors (see banned.h). */
#include "lib/banned.h"

#endif
