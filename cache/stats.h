/*
 * stats.h - counters shown by `astra-cc -s`, like ccache's statistics.
 *
 * Counters are added in memory during a run and merged into
 * <cache dir>/stats once, at the end (astra_stats_flush), under a lock and
 * with an atomic rename, so a parallel build loses no increments.  Failing
 * to write statistics never fails a build.
 */
#ifndef ASTRA_STATS_H
#define ASTRA_STATS_H

#include <stdio.h>

enum astra_stat {
	ASTRA_STAT_ANNOTATED_COMPILES, /* compiles of a TU with annotated kernels */
	ASTRA_STAT_KERNELS_SEEN,       /* annotated kernels met in compiles */
	ASTRA_STAT_HITS,               /* kernel lookups that found a verdict */
	ASTRA_STAT_HITS_FASTER,        /*   ... a faster variant */
	ASTRA_STAT_HITS_NONE,          /*   ... "no faster variant" */
	ASTRA_STAT_HITS_FAILED,        /*   ... "optimization failed" */
	ASTRA_STAT_MISSES,             /* kernel lookups that found nothing usable */
	ASTRA_STAT_SUBSTITUTIONS,      /* kernels compiled as a verified variant */
	ASTRA_STAT_QUEUED,             /* kernels queued for warmup */
	ASTRA_STAT_VERDICT_FASTER,     /* entries stored: a faster variant */
	ASTRA_STAT_VERDICT_NONE,       /* ... no faster variant */
	ASTRA_STAT_VERDICT_FAILED,     /* ... the optimization could not run */
	ASTRA_STAT_FALLBACK_PRAGMA,    /* plain nvcc because of a pragma mistake */
	ASTRA_STAT_FALLBACK_PARSE,     /* ... because extraction failed */
	ASTRA_STAT_FALLBACK_CACHE,     /* ... because the cache was unusable */
	ASTRA_STAT_FALLBACK_REWRITE,   /* ... because the rewritten TU did not compile */
	ASTRA_STAT_FALLBACK_INTERNAL,  /* ... because of another internal failure */
	ASTRA_STAT_CORRUPT_ENTRIES,    /* cache entries that failed their checks (each also a miss) */
	ASTRA_STAT_UNKNOWN_FORMAT,     /* entries of another format version (each also a miss) */
	ASTRA_STAT_CACHE_UNWRITABLE,   /* cache writes refused: read-only, permissions */
	ASTRA_STAT_CACHE_FULL,         /* cache writes that found the disk or quota full */
	ASTRA_STAT_CACHE_IO_ERRORS,    /* other cache I/O errors */
	ASTRA_STAT_LOCK_TIMEOUTS,      /* waits for another process that ran out */
	ASTRA_STAT_CLEANUPS,           /* cleanups run (automatic or asked for) */
	ASTRA_STAT_EVICTED,            /* entries removed by cleanup, eviction or -C */
	ASTRA_STAT_LLM_REQUESTS,
	ASTRA_STAT_LLM_ERRORS,
	ASTRA_STAT_LLM_RETRIES,
	ASTRA_STAT_LLM_TOKENS_IN,
	ASTRA_STAT_LLM_TOKENS_OUT,
	ASTRA_STAT_LLM_CANDIDATES,     /* LLM kernels that passed the checks and compiled */
	ASTRA_STAT_LLM_REJECTED,       /* LLM answers without usable code (none, wrong signature, host code) */
	ASTRA_STAT_LLM_COMPILE_ERRORS, /* LLM kernels that nvcc rejected */
	ASTRA_STAT_LLM_REPAIRS,        /* requests that sent a rejection back to the coding role */
	ASTRA_STAT_LLM_BUDGET,         /* kernels whose LLM budget (calls, tokens, time) ran out */
	ASTRA_STAT_UNTRUSTED,          /* cache files ignored: written by someone not trusted (lib/trust.h) */
	ASTRA_STAT_REMOTE_HITS,        /* hits served by a remote tier (each also a hit) */
	ASTRA_STAT_REMOTE_ERRORS,      /* remote tiers that failed and were skipped for the process */
	ASTRA_STAT_UNSIGNED,           /* entries refused by require_signature (each also a miss) */
	ASTRA_STAT_REMOTE_DOWN,        /* remote tiers skipped because another compile marked them down */
	ASTRA_STAT__COUNT
};

/* Machine name of a counter ("annotated_compiles"). */
const char *astra_stat_name(enum astra_stat s);

void astra_stats_add(enum astra_stat s, long long n);
#define astra_stats_inc(s) astra_stats_add((s), 1)

/*
 * Merge the pending counters into dir/stats.  Returns 0 or -1 (logged).
 * Nothing is written when nothing is pending.
 */
int astra_stats_flush(const char *dir);
/* Read dir/stats into out[ASTRA_STAT__COUNT] (zeros if absent). */
int astra_stats_read(const char *dir, long long *out);
/* a + b for counters: negative ones count 0, the sum saturates at LLONG_MAX. */
long long astra_stats_sum(long long a, long long b);
/* Zero all counters (keeps the file). */
int astra_stats_zero(const char *dir);

#endif
