/*
 * stats.c - the statistics counters (see stats.h).
 *
 * The file is text, one `name value` per line, so a human can read it and
 * an older or newer astra-cc can ignore the names it does not know.
 */
#include "autoconfig.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/stats.h"
#include "cache/storage.h"
#include "lib/buf.h"
#include "lib/log.h"

static const char *const names[ASTRA_STAT__COUNT] = {
	[ASTRA_STAT_ANNOTATED_COMPILES] = "annotated_compiles",
	[ASTRA_STAT_KERNELS_SEEN] = "kernels_seen",
	[ASTRA_STAT_HITS] = "hits",
	[ASTRA_STAT_HITS_FASTER] = "hits_faster",
	[ASTRA_STAT_HITS_NONE] = "hits_no_faster_variant",
	[ASTRA_STAT_HITS_FAILED] = "hits_failed",
	[ASTRA_STAT_MISSES] = "misses",
	[ASTRA_STAT_SUBSTITUTIONS] = "substitutions",
	[ASTRA_STAT_QUEUED] = "queued_for_warmup",
	[ASTRA_STAT_VERDICT_FASTER] = "verdict_faster",
	[ASTRA_STAT_VERDICT_NONE] = "verdict_no_faster_variant",
	[ASTRA_STAT_VERDICT_FAILED] = "verdict_failed",
	[ASTRA_STAT_FALLBACK_PRAGMA] = "fallback_bad_pragma",
	[ASTRA_STAT_FALLBACK_PARSE] = "fallback_extract_failed",
	[ASTRA_STAT_FALLBACK_CACHE] = "fallback_cache_unusable",
	[ASTRA_STAT_FALLBACK_REWRITE] = "fallback_rewrite_failed",
	[ASTRA_STAT_FALLBACK_INTERNAL] = "fallback_internal_error",
	[ASTRA_STAT_CORRUPT_ENTRIES] = "corrupt_entries",
	[ASTRA_STAT_UNKNOWN_FORMAT] = "unknown_format_entries",
	[ASTRA_STAT_CACHE_UNWRITABLE] = "cache_unwritable",
	[ASTRA_STAT_CACHE_FULL] = "cache_full",
	[ASTRA_STAT_CACHE_IO_ERRORS] = "cache_io_errors",
	[ASTRA_STAT_LOCK_TIMEOUTS] = "lock_wait_timeouts",
	[ASTRA_STAT_CLEANUPS] = "cleanups",
	[ASTRA_STAT_EVICTED] = "evicted_entries",
	[ASTRA_STAT_LLM_REQUESTS] = "llm_requests",
	[ASTRA_STAT_LLM_ERRORS] = "llm_errors",
	[ASTRA_STAT_LLM_RETRIES] = "llm_retries",
	[ASTRA_STAT_LLM_TOKENS_IN] = "llm_tokens_in",
	[ASTRA_STAT_LLM_TOKENS_OUT] = "llm_tokens_out",
	[ASTRA_STAT_LLM_CANDIDATES] = "llm_candidates",
	[ASTRA_STAT_LLM_REJECTED] = "llm_answers_rejected",
	[ASTRA_STAT_LLM_COMPILE_ERRORS] = "llm_compile_errors",
	[ASTRA_STAT_LLM_REPAIRS] = "llm_repairs",
	[ASTRA_STAT_LLM_BUDGET] = "llm_budget_exhausted",
	[ASTRA_STAT_UNTRUSTED] = "untrusted_files",
	[ASTRA_STAT_REMOTE_HITS] = "remote_hits",
	[ASTRA_STAT_REMOTE_ERRORS] = "remote_errors",
	[ASTRA_STAT_UNSIGNED] = "unsigned_entries",
	[ASTRA_STAT_REMOTE_DOWN] = "remote_down_skips",
};

static long long pending[ASTRA_STAT__COUNT];

const char *astra_stat_name(enum astra_stat s)
{
	return names[s];
}

void astra_stats_add(enum astra_stat s, long long n)
{
	pending[s] += n;
}

/*
 * A counter as the file has it: digits only.  Anything else (a negative
 * number, garbage, a number cut short by a crash of an older version) is 0,
 * so that no sum shown by -s goes negative; beyond LLONG_MAX is LLONG_MAX
 * (counters saturate).
 */
static long long counter_value(const char *p, size_t len)
{
	long long v = 0;
	size_t i;
	if (!len)
		return 0;
	for (i = 0; i < len; i++) {
		int d = p[i] - '0';
		if (d < 0 || d > 9)
			return 0;
		v = v > (LLONG_MAX - d) / 10 ? LLONG_MAX : v * 10 + d;
	}
	return v;
}

long long astra_stats_sum(long long a, long long b)
{
	if (a < 0)
		a = 0;
	if (b < 0)
		b = 0;
	return a > LLONG_MAX - b ? LLONG_MAX : a + b;
}

static void parse(const char *text, long long *out)
{
	const char *line = text;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		size_t k = strcspn(line, " ");
		int i;
		if (k < len) {
			for (i = 0; i < ASTRA_STAT__COUNT; i++)
				if (strlen(names[i]) == k && !strncmp(line, names[i], k))
					out[i] = counter_value(line + k + 1, len - k - 1);
		}
		line = nl ? nl + 1 : NULL;
	}
}

int astra_stats_read(const char *dir, long long *out)
{
	struct astra_storage *s = astra_storage_file_open(dir);
	struct astra_buf b = ASTRA_BUF_INIT;
	memset(out, 0, sizeof(long long) * ASTRA_STAT__COUNT);
	if (s->ops->get(s, "stats", &b, NULL) > 0)
		parse(b.buf, out);
	astra_buf_release(&b);
	s->ops->close(s);
	return 0;
}

/* Rewrite the local tier's "stats" as base + delta under its lock "stats.lock". */
static int update(const char *dir, const long long *delta, int zero)
{
	struct astra_storage *s = astra_storage_file_open(dir);
	struct astra_file_lock lk = ASTRA_FILE_LOCK_INIT;
	long long cur[ASTRA_STAT__COUNT];
	struct astra_buf b = ASTRA_BUF_INIT;
	int i, ret = -1;

	if (astra_storage_file_create(s) == 0 && astra_storage_file_lock(s, "stats.lock", -1, &lk) == 1) {
		astra_stats_read(dir, cur);
		for (i = 0; i < ASTRA_STAT__COUNT; i++) {
			/* Saturate: a counter at its maximum stays there. */
			if (zero)
				cur[i] = 0;
			else if (delta[i] > 0 && cur[i] > LLONG_MAX - delta[i])
				cur[i] = LLONG_MAX;
			else
				cur[i] += delta[i];
			astra_buf_addf(&b, "%s %lld\n", names[i], cur[i]);
		}
		ret = s->ops->put(s, "stats", b.buf, b.len);
		astra_storage_file_unlock(&lk, 0);
	}
	if (ret < 0)
		astra_trace(ASTRA_TRACE_CACHE, "cannot update the statistics in %s: %s", dir, strerror(errno));
	astra_buf_release(&b);
	s->ops->close(s);
	return ret;
}

int astra_stats_flush(const char *dir)
{
	int i, any = 0;
	for (i = 0; i < ASTRA_STAT__COUNT; i++)
		any |= pending[i] != 0;
	if (!any)
		return 0;
	if (update(dir, pending, 0) < 0)
		return -1;
	memset(pending, 0, sizeof(pending));
	return 0;
}

int astra_stats_zero(const char *dir)
{
	return update(dir, pending, 1);
}
