/*
 * cmd-util.c - what astra-cc's commands share (see cmd-util.h): flags,
 * sizes, ages and times for people, JSON output, the exit path.
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "astra-cc/cmd-util.h"
#include "cache/stats.h"
#include "lib/buf.h"
#include "lib/json.h"

int astra_cmd_has_flag(int argc, char **argv, const char *flag)
{
	int i;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], flag))
			return 1;
	return 0;
}

int astra_cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: %s: ", astra_progname, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", astra_progname);
	return 2;
}

int astra_cmd_check_args(int argc, char **argv, const char *const *flags, int max_operands)
{
	int i, operands = 0;
	for (i = 1; i < argc; i++) {
		const char *const *f;
		int known = 0;
		if (argv[i][0] != '-' || !argv[i][1]) {
			if (++operands > max_operands)
				return astra_cmd_usage_error(argv[0], "unexpected argument '%s'", argv[i]);
			continue;
		}
		for (f = flags; f && *f && !known; f++)
			known = !strcmp(argv[i], *f);
		if (!known)
			return astra_cmd_usage_error(argv[0], "unrecognized option '%s'", argv[i]);
	}
	return 0;
}

void astra_cmd_format_size(struct astra_buf *b, long long n)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = -1;
	if (n < 1024) {
		astra_buf_addf(b, "%lld B", n);
		return;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	astra_buf_addf(b, "%.1f %s", v, units[u]);
}

void astra_cmd_format_age(struct astra_buf *b, long long seconds)
{
	if (seconds < 0)
		seconds = 0;
	if (seconds < 60)
		astra_buf_addf(b, "%llds", seconds);
	else if (seconds < 3600)
		astra_buf_addf(b, "%lldm", seconds / 60);
	else if (seconds < 86400)
		astra_buf_addf(b, "%lldh", seconds / 3600);
	else
		astra_buf_addf(b, "%lldd", seconds / 86400);
}

void astra_cmd_format_time(struct astra_buf *b, long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	astra_buf_addf(b, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		       tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void astra_cmd_print_json(struct astra_json *j)
{
	char *text = astra_json_print(j, 1);
	const char *p;
	/*
	 * The printer escapes control characters below 0x20; DEL and the C1
	 * controls (U+0080..U+009F, a CSI among them) are escaped here too,
	 * as \u00XX (the same JSON), so that no string of a manifest sends a
	 * control sequence to a terminal.
	 */
	for (p = text; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == 0x7f)
			fputs("\\u007f", stdout);
		else if (c == 0xc2 && (unsigned char)p[1] >= 0x80 && (unsigned char)p[1] <= 0x9f)
			printf("\\u00%02x", (unsigned char)*++p);
		else
			putchar(c);
	}
	putchar('\n');
	free(text);
}

int astra_cmd_finish(int ret, struct astra_cache *c)
{
	astra_stats_flush(astra_cache_dir(c));
	astra_cache_close(c);
	return ret;
}

int astra_parse_age(const char *s, long long *seconds)
{
	char *end;
	double v;
	double mult = 1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v >= 0) || !isfinite(v))
		return -1;
	switch (*end) {
	case '\0': break;
	case 's': end++; break;
	case 'm': mult = 60; end++; break;
	case 'h': mult = 3600; end++; break;
	case 'd': mult = 86400; end++; break;
	default: return -1;
	}
	if (*end)
		return -1;
	*seconds = (long long)(v * mult);
	return 0;
}

void astra_cmd_print_row(int indent, const char *label, const char *value)
{
	/* Values come from files (a manifest): no control character reaches the terminal. */
	struct astra_buf b = ASTRA_BUF_INIT;
	astra_buf_add_printable(&b, value, 0);
	printf("%*s%-*s %s\n", indent * 2, "", 34 - indent * 2, label, b.buf);
	astra_buf_release(&b);
}
