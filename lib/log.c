/*
 * log.c - the log file and trace categories (see log.h).
 *
 * Each message is formatted into one buffer and written with a single
 * write() on an O_APPEND descriptor, so lines from the many processes of a
 * parallel build interleave whole.
 */
#include "autoconfig.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/log.h"

static int log_fd = -1;
static int log_wanted;  /* a log file was configured (even if it failed to open) */
static unsigned trace_mask;

static const struct {
	const char *name;
	enum astra_trace bit;
} trace_names[] = {
	{ "driver", ASTRA_TRACE_DRIVER }, { "cache", ASTRA_TRACE_CACHE },
	{ "extract", ASTRA_TRACE_EXTRACT }, { "verify", ASTRA_TRACE_VERIFY },
	{ "loop", ASTRA_TRACE_LOOP }, { "llm", ASTRA_TRACE_LLM },
	{ "exec", ASTRA_TRACE_EXEC },
};

void astra_log_close(void)
{
	if (log_fd >= 0)
		close(log_fd);
	log_fd = -1;
	log_wanted = 0;
	trace_mask = 0;
}

void astra_log_open(const char *path, const char *trace)
{
	astra_log_close();
	if (path && *path) {
		struct stat st;
		log_wanted = 1;
		/*
		 * Only a regular file, reached without a symbolic link (a log in
		 * /tmp must not append to whatever someone's link points at), and
		 * opened without blocking (a FIFO in its place must not hang the
		 * build).  Anything else: no log.
		 */
		log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
		if (log_fd >= 0 && (fstat(log_fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(log_fd);
			log_fd = -1;
		}
	}
	while (trace && *trace) {
		size_t n = strcspn(trace, ",");
		size_t i;
		if (n == 3 && !strncmp(trace, "all", 3))
			trace_mask = ~0u;
		for (i = 0; i < ARRAY_SIZE(trace_names); i++)
			if (strlen(trace_names[i].name) == n && !strncmp(trace, trace_names[i].name, n))
				trace_mask |= trace_names[i].bit;
		trace += n;
		if (*trace == ',')
			trace++;
	}
}

int astra_trace_valid(const char *list)
{
	while (*list) {
		size_t n = strcspn(list, ","), i;
		int known = n == 3 && !strncmp(list, "all", 3);
		for (i = 0; i < ARRAY_SIZE(trace_names) && !known; i++)
			known = strlen(trace_names[i].name) == n && !strncmp(list, trace_names[i].name, n);
		if (!known)
			return 0;
		list += n;
		if (*list == ',')
			list++;
	}
	return 1;
}

int astra_trace_on(enum astra_trace cat)
{
	return (trace_mask & cat) != 0;
}

static void emit(const char *prefix, const char *fmt, va_list ap, int to_stderr)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct timespec ts;
	struct tm tm;
	/* Trace goes to stderr only when no log file was asked for at all. */
	int fd = log_fd >= 0 ? log_fd : (to_stderr && !log_wanted ? 2 : -1);

	if (fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	astra_buf_addf(&b, "[%04d-%02d-%02dT%02d:%02d:%02d.%06ld %d] %s",
		       tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		       tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000, (int)getpid(), prefix);
	astra_buf_vaddf(&b, fmt, ap);
	/* A URL's password never reaches the log, whoever wrote the message. */
	astra_buf_redact_userinfo(&b);
	astra_buf_addch(&b, '\n');
	if (write(fd, b.buf, b.len) < 0) {
		/* Nothing sensible to do: the log is best effort. */
	}
	astra_buf_release(&b);
}

void astra_vlog(enum astra_log_level level, const char *fmt, va_list ap)
{
	static const char *const prefix[] = { "error: ", "warning: ", "" };
	emit(prefix[level], fmt, ap, 0);
}

void astra_log(enum astra_log_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	astra_vlog(level, fmt, ap);
	va_end(ap);
}

void astra_trace(enum astra_trace cat, const char *fmt, ...)
{
	va_list ap;
	size_t i;
	char prefix[32] = "";
	if (!(trace_mask & cat))
		return;
	for (i = 0; i < ARRAY_SIZE(trace_names); i++)
		if (trace_names[i].bit == cat)
			snprintf(prefix, sizeof(prefix), "%s: ", trace_names[i].name);
	va_start(ap, fmt);
	emit(prefix, fmt, ap, 1);
	va_end(ap);
}
