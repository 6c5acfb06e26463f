/*
 * cmd-util.h - small helpers of astra-cc's commands.
 */
#ifndef ASTRA_CMD_UTIL_H
#define ASTRA_CMD_UTIL_H

#include "cache/store.h"
#include "lib/buf.h"
#include "lib/json.h"

/* Is flag one of argv[1..argc)? */
int astra_cmd_has_flag(int argc, char **argv, const char *flag);
/*
 * A usage error of command cmd, GNU style: "astra-cc: CMD: MESSAGE" and a
 * hint on stderr.  Returns 2, the exit status of usage errors.
 */
int astra_cmd_usage_error(const char *cmd, const char *fmt, ...) ASTRA_PRINTF(2, 3);
/*
 * Check the arguments of a command that takes only flags and operands
 * (argv[0] is the command as typed): every argument that starts with '-'
 * must be one of flags (NULL-terminated, or NULL for none), and at most
 * max_operands others may follow.  Returns 0, or astra_cmd_usage_error()'s
 * 2 after saying what is wrong.
 */
int astra_cmd_check_args(int argc, char **argv, const char *const *flags, int max_operands);
/* "12.3 MiB", "45s"/"3m"/"2h"/"5d", "2026-11-26T10:00:00Z" appended to b. */
void astra_cmd_format_size(struct astra_buf *b, long long n);
void astra_cmd_format_age(struct astra_buf *b, long long seconds);
void astra_cmd_format_time(struct astra_buf *b, long long t);
/*
 * One "label   value" line of a -s / --show-entry table, indented by indent
 * levels; control characters in value are escaped (astra_buf_add_printable).
 */
void astra_cmd_print_row(int indent, const char *label, const char *value);
/* Print j (indented) and a newline on stdout. */
void astra_cmd_print_json(struct astra_json *j);
/* Flush the statistics into c's directory, close c, return ret. */
int astra_cmd_finish(int ret, struct astra_cache *c);
/* Parse an age ("30d", "12h", "90m", "3600s", "3600") into seconds.  0 or -1. */
int astra_parse_age(const char *s, long long *seconds);

#endif
