/*
 * log.h - astra-cc's own messages.
 *
 * stdout and stderr belong to nvcc, so astra-cc writes what it has to say
 * to a log file (log_file / ASTRA_CC_LOG_FILE) and to nowhere else.  Trace
 * categories (ASTRA_CC_TRACE=cache,llm,...) add detail; they go to the log
 * file, or to stderr when no log file is set (setting a trace variable is
 * asking for output).  A log file that cannot be opened is ignored: logging
 * must never change what the build does.  The log file must be a regular
 * file that its path reaches without a symbolic link at its end (O_NOFOLLOW,
 * so a link planted in /tmp cannot make astra-cc append to another file);
 * it is opened without blocking, and a FIFO or device there means no log.
 */
#ifndef ASTRA_LOG_H
#define ASTRA_LOG_H

#include <stdarg.h>

#include "lib/util.h"

enum astra_log_level {
	ASTRA_LOG_ERROR,
	ASTRA_LOG_WARNING,
	ASTRA_LOG_INFO,
};

/* Trace categories, as bits. */
enum astra_trace {
	ASTRA_TRACE_DRIVER = 1 << 0,
	ASTRA_TRACE_CACHE = 1 << 1,
	ASTRA_TRACE_EXTRACT = 1 << 2,
	ASTRA_TRACE_VERIFY = 1 << 3,
	ASTRA_TRACE_LOOP = 1 << 4,
	ASTRA_TRACE_LLM = 1 << 5,
	ASTRA_TRACE_EXEC = 1 << 6,
};

/*
 * Open the log.  path may be NULL or "" (no log file).  trace is a comma
 * separated list of category names or "all".  Safe to call again (the old
 * log is closed).
 */
void astra_log_open(const char *path, const char *trace);
void astra_log_close(void);
/*
 * Is list a valid trace setting: empty, or comma-separated category names
 * (driver, cache, extract, verify, loop, llm, exec) or "all"?
 */
int astra_trace_valid(const char *list);
/* Non-zero when messages of this trace category are wanted. */
int astra_trace_on(enum astra_trace cat);

void astra_log(enum astra_log_level level, const char *fmt, ...) ASTRA_PRINTF(2, 3);
void astra_vlog(enum astra_log_level level, const char *fmt, va_list ap);
void astra_trace(enum astra_trace cat, const char *fmt, ...) ASTRA_PRINTF(2, 3);

#endif
