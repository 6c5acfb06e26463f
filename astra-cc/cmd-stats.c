/*
 * cmd-stats.c - -s, --show-stats [--json] and -z, --zero-stats: the
 * statistics, as ccache -s shows them.
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "astra-cc/cmd-cache.h"
#include "astra-cc/cmd-util.h"
#include "cache/cleanup.h"
#include "cache/queue.h"
#include "cache/stats.h"
#include "cache/store.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/json.h"

/* ------------------------------------------------------------ -s, -z */

struct stat_row {
	int indent;
	const char *label;
	int stats[11]; /* summed; ends with -1 */
};

#define S(x) ASTRA_STAT_##x
static const struct stat_row stat_rows[] = {
	{ 0, "annotated compiles", { S(ANNOTATED_COMPILES), -1 } },
	{ 0, "kernels seen", { S(KERNELS_SEEN), -1 } },
	{ 0, "lookups", { S(HITS), S(MISSES), -1 } },
	{ 1, "hits", { S(HITS), -1 } },
	{ 2, "faster variant", { S(HITS_FASTER), -1 } },
	{ 2, "no faster variant", { S(HITS_NONE), -1 } },
	{ 2, "optimization failed", { S(HITS_FAILED), -1 } },
	{ 1, "misses", { S(MISSES), -1 } },
	{ 0, "hits from remote tiers", { S(REMOTE_HITS), -1 } },
	{ 0, "substitutions", { S(SUBSTITUTIONS), -1 } },
	{ 0, "queued for warmup", { S(QUEUED), -1 } },
	{ 0, "entries stored", { S(VERDICT_FASTER), S(VERDICT_NONE), S(VERDICT_FAILED), -1 } },
	{ 1, "faster variant", { S(VERDICT_FASTER), -1 } },
	{ 1, "no faster variant", { S(VERDICT_NONE), -1 } },
	{ 1, "optimization failed", { S(VERDICT_FAILED), -1 } },
	{ 0, "fallbacks to plain nvcc", { S(FALLBACK_PRAGMA), S(FALLBACK_PARSE), S(FALLBACK_CACHE),
					  S(FALLBACK_REWRITE), S(FALLBACK_INTERNAL), -1 } },
	{ 1, "bad pragma", { S(FALLBACK_PRAGMA), -1 } },
	{ 1, "extraction failed", { S(FALLBACK_PARSE), -1 } },
	{ 1, "cache unusable", { S(FALLBACK_CACHE), -1 } },
	{ 1, "rewritten TU failed", { S(FALLBACK_REWRITE), -1 } },
	{ 1, "internal error", { S(FALLBACK_INTERNAL), -1 } },
	{ 0, "cache problems", { S(CORRUPT_ENTRIES), S(UNKNOWN_FORMAT), S(UNSIGNED), S(REMOTE_ERRORS), S(REMOTE_DOWN),
				 S(CACHE_UNWRITABLE), S(CACHE_FULL), S(CACHE_IO_ERRORS), S(LOCK_TIMEOUTS), S(UNTRUSTED), -1 } },
	{ 1, "corrupt entries", { S(CORRUPT_ENTRIES), -1 } },
	{ 1, "unknown format entries", { S(UNKNOWN_FORMAT), -1 } },
	{ 1, "unsigned or badly signed", { S(UNSIGNED), -1 } },
	{ 1, "remote tiers skipped", { S(REMOTE_ERRORS), -1 } },
	{ 1, "remote tiers marked down", { S(REMOTE_DOWN), -1 } },
	{ 1, "untrusted files", { S(UNTRUSTED), -1 } },
	{ 1, "unwritable", { S(CACHE_UNWRITABLE), -1 } },
	{ 1, "disk full", { S(CACHE_FULL), -1 } },
	{ 1, "I/O errors", { S(CACHE_IO_ERRORS), -1 } },
	{ 1, "lock wait timeouts", { S(LOCK_TIMEOUTS), -1 } },
	{ 0, "cleanups", { S(CLEANUPS), -1 } },
	{ 0, "evicted entries", { S(EVICTED), -1 } },
	{ 0, "LLM requests", { S(LLM_REQUESTS), -1 } },
	{ 1, "errors", { S(LLM_ERRORS), -1 } },
	{ 1, "retries", { S(LLM_RETRIES), -1 } },
	{ 1, "tokens in", { S(LLM_TOKENS_IN), -1 } },
	{ 1, "tokens out", { S(LLM_TOKENS_OUT), -1 } },
	{ 1, "candidates", { S(LLM_CANDIDATES), -1 } },
	{ 1, "answers rejected", { S(LLM_REJECTED), -1 } },
	{ 1, "compile errors", { S(LLM_COMPILE_ERRORS), -1 } },
	{ 1, "repairs", { S(LLM_REPAIRS), -1 } },
	{ 1, "budgets exhausted", { S(LLM_BUDGET), -1 } },
};
#undef S

static long long row_value(const struct stat_row *r, const long long *v)
{
	long long sum = 0;
	const int *s;
	/* Saturating: two counters at the maximum are not -2 (issue 28). */
	for (s = r->stats; *s >= 0; s++)
		sum = astra_stats_sum(sum, v[*s]);
	return sum;
}

int astra_cache_cmd_show_stats(int argc, char **argv)
{
	static const char *const flags[] = { "--json", NULL };
	struct astra_cache *c;
	long long v[ASTRA_STAT__COUNT], bytes = 0, entries = 0, queued;
	long long max_size = astra_config_int(ASTRA_CFG_MAX_SIZE);
	int usable, i;
	size_t r;

	if (astra_cmd_check_args(argc, argv, flags, 0))
		return 2;
	c = astra_cache_open(NULL);

	astra_stats_read(astra_cache_dir(c), v);
	usable = astra_cache_usage(astra_cache_local(c), &bytes, &entries) == 0;
	queued = astra_cache_queue_length(c);
	if (astra_cmd_has_flag(argc, argv, "--json")) {
		struct astra_json *j = astra_json_new_object();
		astra_json_set_str(j, "cache_dir", astra_cache_dir(c));
		astra_json_set_num(j, "max_size", (double)max_size);
		astra_json_set_num(j, "cache_size", (double)bytes);
		astra_json_set_num(j, "cache_entries", (double)entries);
		astra_json_set_bool(j, "cache_readable", usable);
		astra_json_set_num(j, "warmup_queue", (double)queued);
		astra_json_set_num(j, "lookups", (double)astra_stats_sum(v[ASTRA_STAT_HITS], v[ASTRA_STAT_MISSES]));
		for (i = 0; i < ASTRA_STAT__COUNT; i++)
			astra_json_set_num(j, astra_stat_name(i), (double)v[i]);
		astra_cmd_print_json(j);
		astra_json_free(j);
		astra_cache_close(c);
		return 0;
	}
	{
		struct astra_buf b = ASTRA_BUF_INIT;
		astra_cmd_print_row(0, "cache directory", astra_cache_dir(c));
		if (max_size > 0)
			astra_cmd_format_size(&b, max_size);
		else
			astra_buf_adds(&b, "no limit");
		astra_cmd_print_row(0, "max cache size", b.buf);
		astra_buf_reset(&b);
		if (usable)
			astra_cmd_format_size(&b, bytes);
		else
			astra_buf_adds(&b, "unreadable");
		astra_cmd_print_row(0, "cache size", b.buf);
		astra_buf_reset(&b);
		astra_buf_addf(&b, "%lld", entries);
		astra_cmd_print_row(0, "cache entries", b.buf);
		astra_buf_reset(&b);
		astra_buf_addf(&b, "%lld", queued);
		astra_cmd_print_row(0, "warmup queue", b.buf);
		for (r = 0; r < ARRAY_SIZE(stat_rows); r++) {
			astra_buf_reset(&b);
			astra_buf_addf(&b, "%lld", row_value(&stat_rows[r], v));
			astra_cmd_print_row(stat_rows[r].indent, stat_rows[r].label, b.buf);
		}
		astra_buf_release(&b);
	}
	astra_cache_close(c);
	return 0;
}

int astra_cache_cmd_zero_stats(int argc, char **argv)
{
	const char *dir = astra_config_str(ASTRA_CFG_DIR);
	if (astra_cmd_check_args(argc, argv, NULL, 0))
		return 2;
	if (astra_stats_zero(dir) < 0) {
		fprintf(stderr, "%s: cannot zero the statistics in %s: %s\n", astra_progname, dir, strerror(errno));
		return 1;
	}
	printf("statistics zeroed\n");
	return 0;
}
