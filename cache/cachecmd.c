/*
 * cachecmd.c - the cache's commands: -s, -z, --show-entry, --list, -M,
 * -C, --cleanup, --evict-older-than (see cachecmd.h).
 *
 * Apart from the store because these are user interface (tables, JSON,
 * messages on stdout/stderr), which nothing on the compile path needs.
 */
#include "autoconfig.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "astra-cc/buf.h"
#include "astra-cc/config.h"
#include "astra-cc/json.h"
#include "cache/cachecmd.h"
#include "cache/cleanup.h"
#include "cache/fsio.h"
#include "cache/lock.h"
#include "cache/queue.h"
#include "cache/stats.h"
#include "cache/store.h"

/* ------------------------------------------------------------ helpers */

static int has_flag(int argc, char **argv, const char *flag)
{
	int i;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], flag))
			return 1;
	return 0;
}

static void format_size(struct astra_buf *b, long long n)
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

static void format_age(struct astra_buf *b, long long seconds)
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

static void format_time(struct astra_buf *b, long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	astra_buf_addf(b, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		       tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void print_json(struct astra_json *j)
{
	char *text = astra_json_print(j, 1);
	printf("%s\n", text);
	free(text);
}

static int finish(int ret, struct astra_cache *c)
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

/* ------------------------------------------------------------ -s, -z */

struct stat_row {
	int indent;
	const char *label;
	int stats[7]; /* summed; ends with -1 */
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
	{ 0, "cache problems", { S(CORRUPT_ENTRIES), S(UNKNOWN_FORMAT), S(CACHE_UNWRITABLE),
				 S(CACHE_FULL), S(CACHE_IO_ERRORS), S(LOCK_TIMEOUTS), -1 } },
	{ 1, "corrupt entries", { S(CORRUPT_ENTRIES), -1 } },
	{ 1, "unknown format entries", { S(UNKNOWN_FORMAT), -1 } },
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
	for (s = r->stats; *s >= 0; s++)
		sum += v[*s];
	return sum;
}

static void print_row(int indent, const char *label, const char *value)
{
	printf("%*s%-*s %s\n", indent * 2, "", 34 - indent * 2, label, value);
}

int astra_cache_cmd_show_stats(int argc, char **argv)
{
	struct astra_cache *c = astra_cache_open(NULL);
	long long v[ASTRA_STAT__COUNT], bytes = 0, entries = 0, queued;
	long long max_size = astra_config_int(ASTRA_CFG_MAX_SIZE);
	int usable, i;
	size_t r;

	astra_stats_read(astra_cache_dir(c), v);
	usable = astra_cache_usage(c, &bytes, &entries) == 0;
	queued = astra_cache_queue_length(c);
	if (has_flag(argc, argv, "--json")) {
		struct astra_json *j = astra_json_new_object();
		astra_json_set_str(j, "cache_dir", astra_cache_dir(c));
		astra_json_set_num(j, "max_size", (double)max_size);
		astra_json_set_num(j, "cache_size", (double)bytes);
		astra_json_set_num(j, "cache_entries", (double)entries);
		astra_json_set_bool(j, "cache_readable", usable);
		astra_json_set_num(j, "warmup_queue", (double)queued);
		astra_json_set_num(j, "lookups", (double)(v[ASTRA_STAT_HITS] + v[ASTRA_STAT_MISSES]));
		for (i = 0; i < ASTRA_STAT__COUNT; i++)
			astra_json_set_num(j, astra_stat_name(i), (double)v[i]);
		print_json(j);
		astra_json_free(j);
		astra_cache_close(c);
		return 0;
	}
	{
		struct astra_buf b = ASTRA_BUF_INIT;
		print_row(0, "cache directory", astra_cache_dir(c));
		if (max_size > 0)
			format_size(&b, max_size);
		else
			astra_buf_adds(&b, "no limit");
		print_row(0, "max cache size", b.buf);
		astra_buf_reset(&b);
		if (usable)
			format_size(&b, bytes);
		else
			astra_buf_adds(&b, "unreadable");
		print_row(0, "cache size", b.buf);
		astra_buf_reset(&b);
		astra_buf_addf(&b, "%lld", entries);
		print_row(0, "cache entries", b.buf);
		astra_buf_reset(&b);
		astra_buf_addf(&b, "%lld", queued);
		print_row(0, "warmup queue", b.buf);
		for (r = 0; r < ARRAY_SIZE(stat_rows); r++) {
			astra_buf_reset(&b);
			astra_buf_addf(&b, "%lld", row_value(&stat_rows[r], v));
			print_row(stat_rows[r].indent, stat_rows[r].label, b.buf);
		}
		astra_buf_release(&b);
	}
	astra_cache_close(c);
	return 0;
}

int astra_cache_cmd_zero_stats(int argc, char **argv)
{
	const char *dir = astra_config_str(ASTRA_CFG_DIR);
	(void)argc;
	(void)argv;
	if (astra_stats_zero(dir) < 0) {
		fprintf(stderr, "%s: cannot zero the statistics in %s: %s\n", astra_progname, dir, strerror(errno));
		return 1;
	}
	printf("statistics zeroed\n");
	return 0;
}

/* ------------------------------------------------------------ entries */

struct found {
	char key[33];
	int cc;
};

struct found_list {
	struct found *v;
	size_t nr, alloc;
	int arch;      /* only this cc, or 0 */
};

static int collect_entry(const char *name, const struct astra_storage_stat *st, void *data)
{
	struct found_list *l = data;
	struct found f;
	(void)st;
	if (astra_cache_parse_name(name, f.key, &f.cc) != 1 || (l->arch && f.cc != l->arch))
		return 0;
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = f;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	int r = strcmp(x->key, y->key);
	return r ? r : x->cc - y->cc;
}

static int parse_arch(const char *s)
{
	char *end;
	long v;
	if (astra_starts_with(s, "sm_") || astra_starts_with(s, "compute_"))
		s = strchr(s, '_') + 1;
	v = strtol(s, &end, 10);
	if (end == s || (*end && strcmp(end, "a") && strcmp(end, "f")) || v <= 0 || v > 9999)
		return -1;
	return (int)v;
}

static void entry_json(struct astra_cache *c, struct astra_json *list, const struct found *f)
{
	struct astra_entry e;
	struct astra_json *m = NULL, *o;
	struct astra_storage_stat st = { 0, 0 };
	const char *why = "";
	char *name = astra_cache_entry_name(f->key, f->cc);
	char *path = astra_storage_file_path(astra_cache_dir(c), name);
	int r = astra_cache_peek(c, f->key, f->cc, &e, &m, &st, &why);

	if (r > 0) {
		o = m;
		astra_json_set_str(o, "path", path);
		astra_json_set_num(o, "size", (double)st.size);
		astra_json_set_num(o, "last_used", (double)(st.mtime / 1000000000LL));
		if (e.variant)
			astra_json_set_str(o, "variant_text", e.variant);
	} else {
		o = astra_json_new_object();
		astra_json_set_str(o, "key", f->key);
		astra_json_set_num(o, "cc", f->cc);
		astra_json_set_str(o, "path", path);
		astra_json_set_str(o, "error", r < 0 ? why : "vanished");
	}
	astra_json_push(list, o);
	astra_entry_release(&e);
	free(name);
	free(path);
}

static int show_one(struct astra_cache *c, const struct found *f)
{
	struct astra_entry e;
	struct astra_json *m = NULL;
	struct astra_storage_stat st = { 0, 0 };
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *why = "";
	char *name = astra_cache_entry_name(f->key, f->cc);
	char *path = astra_storage_file_path(astra_cache_dir(c), name);
	long long now = astra_time();
	int r = astra_cache_peek(c, f->key, f->cc, &e, &m, &st, &why);

	if (r <= 0) {
		fprintf(stderr, "%s: %s: %s\n", astra_progname, path, r < 0 ? why : "vanished");
		free(name);
		free(path);
		return 1;
	}
	print_row(0, "entry", path);
	print_row(0, "key", e.key);
	astra_buf_addf(&b, "sm_%d", e.cc);
	print_row(0, "arch", b.buf);
	astra_buf_reset(&b);
	astra_buf_adds(&b, e.kernel);
	if (e.file)
		astra_buf_addf(&b, " (%s:%u)", e.file, e.line);
	print_row(0, "kernel", b.buf);
	print_row(0, "verdict", astra_verdict_name(e.verdict));
	if (e.reason)
		print_row(0, "reason", e.reason);
	if (e.verdict == ASTRA_VERDICT_FASTER) {
		astra_buf_reset(&b);
		astra_buf_addf(&b, "%.2fx", e.speedup);
		print_row(0, "speedup", b.buf);
	}
	astra_buf_reset(&b);
	astra_buf_addf(&b, "%s%s%s%s", e.device ? e.device : "?", e.driver ? " (driver " : "",
		       e.driver ? e.driver : "", e.driver ? ")" : "");
	print_row(0, "device", b.buf);
	astra_buf_reset(&b);
	astra_buf_addf(&b, "%s%s%s", e.optimizer ? e.optimizer : "?", e.model ? ", model " : "",
		       e.model ? e.model : "");
	print_row(0, "optimizer", b.buf);
	astra_buf_reset(&b);
	format_time(&b, e.created);
	astra_buf_adds(&b, " (");
	format_age(&b, now - e.created);
	astra_buf_adds(&b, " ago)");
	print_row(0, "created", b.buf);
	astra_buf_reset(&b);
	format_time(&b, st.mtime / 1000000000LL);
	astra_buf_adds(&b, " (");
	format_age(&b, now - st.mtime / 1000000000LL);
	astra_buf_adds(&b, " ago)");
	print_row(0, "last used", b.buf);
	astra_buf_reset(&b);
	astra_buf_addf(&b, "%lld bytes", st.size);
	print_row(0, "size", b.buf);
	if (astra_cache_lock_held(c, e.key, e.cc) == 1)
		print_row(0, "lock", "held (an optimization is running)");
	printf("manifest:\n");
	print_json(m);
	if (e.variant) {
		printf("variant:\n%s", e.variant);
		if (e.variant_len && e.variant[e.variant_len - 1] != '\n')
			printf("\n");
	}
	astra_buf_release(&b);
	astra_json_free(m);
	astra_entry_release(&e);
	free(name);
	free(path);
	return 0;
}

static int is_hex_prefix(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n >= 4 && n <= 32 && !s[n];
}

int astra_cache_cmd_show_entry(int argc, char **argv)
{
	struct astra_cache *c;
	struct found_list l = { NULL, 0, 0, 0 };
	struct astra_storage *s;
	const char *key = NULL;
	int json = 0, transcript = 0, i, ret = 0;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--transcript"))
			transcript = 1;
		else if (!strcmp(argv[i], "--arch") && i + 1 < argc)
			l.arch = parse_arch(argv[++i]);
		else if (astra_starts_with(argv[i], "--arch="))
			l.arch = parse_arch(argv[i] + 7);
		else if (!key && argv[i][0] != '-')
			key = argv[i];
		else
			key = "";
	}
	if (!key || !is_hex_prefix(key) || l.arch < 0) {
		fprintf(stderr, "usage: %s --show-entry KEY [--arch sm_XX] [--transcript] [--json]\n"
			"(KEY: the entry's key, or at least its first 4 hex digits)\n", astra_progname);
		return 2;
	}
	c = astra_cache_open(NULL);
	s = astra_cache_local(c);
	s->ops->list(s, key, collect_entry, &l);
	if (l.nr)
		qsort(l.v, l.nr, sizeof(*l.v), by_key);
	if (!l.nr) {
		fprintf(stderr, "%s: no cache entry for %s%s in %s\n", astra_progname, key,
			l.arch ? " for that architecture" : "", astra_cache_dir(c));
		free(l.v);
		return finish(1, c);
	}
	if (strcmp(l.v[0].key, l.v[l.nr - 1].key)) {
		fprintf(stderr, "%s: %s is ambiguous:", astra_progname, key);
		for (k = 0; k < l.nr; k++)
			if (!k || strcmp(l.v[k].key, l.v[k - 1].key))
				fprintf(stderr, " %s", l.v[k].key);
		fprintf(stderr, "\n");
		free(l.v);
		return finish(1, c);
	}
	if (transcript) {
		struct astra_buf b = ASTRA_BUF_INIT;
		int r;
		if (l.nr > 1) {
			fprintf(stderr, "%s: %s has entries for several architectures: give --arch\n",
				astra_progname, key);
			free(l.v);
			return finish(1, c);
		}
		r = astra_cache_transcript(c, l.v[0].key, l.v[0].cc, &b);
		if (r > 0) {
			fwrite(b.buf, 1, b.len, stdout);
			if (b.len && b.buf[b.len - 1] != '\n')
				putchar('\n');
		} else {
			fprintf(stderr, "%s: %s sm_%d: %s\n", astra_progname, l.v[0].key, l.v[0].cc,
				r == 0 ? "no transcript stored" : "the transcript is missing or corrupt");
			ret = 1;
		}
		astra_buf_release(&b);
	} else if (json) {
		struct astra_json *j = astra_json_new_object(), *list;
		astra_json_set_str(j, "key", l.v[0].key);
		list = astra_json_set_array(j, "entries");
		for (k = 0; k < l.nr; k++)
			entry_json(c, list, &l.v[k]);
		print_json(j);
		astra_json_free(j);
	} else {
		for (k = 0; k < l.nr; k++) {
			if (k)
				printf("\n");
			ret |= show_one(c, &l.v[k]);
		}
	}
	free(l.v);
	return finish(ret, c);
}

struct list_row {
	char key[33];
	int cc;
	char *kernel, *verdict, *speedup, *device;
	long long created, last_used, size;
	double speedup_v;
};

static int by_last_use(const void *a, const void *b)
{
	const struct list_row *x = a, *y = b;
	if (x->last_used != y->last_used)
		return x->last_used > y->last_used ? -1 : 1;
	return strcmp(x->key, y->key) ? strcmp(x->key, y->key) : x->cc - y->cc;
}

int astra_cache_cmd_list(int argc, char **argv)
{
	struct astra_cache *c = astra_cache_open(NULL);
	struct astra_storage *s = astra_cache_local(c);
	struct found_list l = { NULL, 0, 0, 0 };
	struct list_row *rows;
	long long now = astra_time();
	size_t i, w_kernel = 6, w_device = 6;

	s->ops->list(s, "", collect_entry, &l);
	rows = xcalloc(l.nr + 1, sizeof(*rows));
	for (i = 0; i < l.nr; i++) {
		struct astra_entry e;
		struct astra_storage_stat st = { 0, 0 };
		const char *why;
		struct list_row *r = &rows[i];
		int ok = astra_cache_peek(c, l.v[i].key, l.v[i].cc, &e, NULL, &st, &why);
		memcpy(r->key, l.v[i].key, sizeof(r->key));
		r->cc = l.v[i].cc;
		r->last_used = st.mtime / 1000000000LL;
		r->size = st.size;
		if (ok > 0) {
			r->kernel = xstrdup(e.kernel);
			r->verdict = xstrdup(astra_verdict_name(e.verdict));
			r->speedup_v = e.speedup;
			r->speedup = e.verdict == ASTRA_VERDICT_FASTER ? xasprintf("%.2fx", e.speedup) : xstrdup("-");
			r->device = xstrdup(e.device ? e.device : "?");
			r->created = e.created;
		} else {
			r->kernel = xstrdup("?");
			r->verdict = xstrdup(ok < 0 ? "corrupt" : "vanished");
			r->speedup = xstrdup("-");
			r->device = xstrdup("?");
			r->created = r->last_used;
		}
		astra_entry_release(&e);
		if (strlen(r->kernel) > w_kernel)
			w_kernel = strlen(r->kernel);
		if (strlen(r->device) > w_device)
			w_device = strlen(r->device);
	}
	if (l.nr)
		qsort(rows, l.nr, sizeof(*rows), by_last_use);
	if (has_flag(argc, argv, "--json")) {
		struct astra_json *j = astra_json_new_array();
		for (i = 0; i < l.nr; i++) {
			struct astra_json *o = astra_json_new_object();
			char arch[16];
			snprintf(arch, sizeof(arch), "sm_%d", rows[i].cc);
			astra_json_set_str(o, "key", rows[i].key);
			astra_json_set_num(o, "cc", rows[i].cc);
			astra_json_set_str(o, "arch", arch);
			astra_json_set_str(o, "kernel", rows[i].kernel);
			astra_json_set_str(o, "verdict", rows[i].verdict);
			astra_json_set_num(o, "speedup", rows[i].speedup_v);
			astra_json_set_str(o, "device", rows[i].device);
			astra_json_set_num(o, "created", (double)rows[i].created);
			astra_json_set_num(o, "last_used", (double)rows[i].last_used);
			astra_json_set_num(o, "size", (double)rows[i].size);
			astra_json_push(j, o);
		}
		print_json(j);
		astra_json_free(j);
	} else {
		printf("%-16s %-7s %-*s %-17s %-7s %-*s %5s %8s\n", "KEY", "ARCH", (int)w_kernel, "KERNEL",
		       "VERDICT", "SPEEDUP", (int)w_device, "DEVICE", "AGE", "LAST USE");
		for (i = 0; i < l.nr; i++) {
			struct astra_buf age = ASTRA_BUF_INIT, used = ASTRA_BUF_INIT;
			char arch[16];
			snprintf(arch, sizeof(arch), "sm_%d", rows[i].cc);
			format_age(&age, now - rows[i].created);
			format_age(&used, now - rows[i].last_used);
			printf("%-16.16s %-7s %-*s %-17s %-7s %-*s %5s %8s\n", rows[i].key, arch, (int)w_kernel,
			       rows[i].kernel, rows[i].verdict, rows[i].speedup, (int)w_device, rows[i].device,
			       age.buf, used.buf);
			astra_buf_release(&age);
			astra_buf_release(&used);
		}
	}
	for (i = 0; i < l.nr; i++) {
		free(rows[i].kernel);
		free(rows[i].verdict);
		free(rows[i].speedup);
		free(rows[i].device);
	}
	free(rows);
	free(l.v);
	return finish(0, c);
}

/* ------------------------------------------------------------ limits */

int astra_cache_cmd_is_max_size(int argc, char **argv)
{
	long long n;
	return argc == 3 && !strcmp(argv[1], "-M") && astra_parse_size(argv[2], &n) == 0;
}

/* The value of a command given as "--opt=VALUE" or "--opt VALUE". */
static const char *command_value(int argc, char **argv, int *next)
{
	const char *eq = strchr(argv[0], '=');
	*next = 1;
	if (eq && argv[0][1] == '-')
		return eq + 1;
	if (argc < 2)
		return NULL;
	*next = 2;
	return argv[1];
}

/* Is line "max_size = ..." (any spacing)? */
static int line_sets(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name), i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (len - i < n || memcmp(line + i, name, n))
		return 0;
	i += n;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i < len && line[i] == '=';
}

int astra_cache_cmd_max_size(int argc, char **argv)
{
	const char *path = astra_config_path(), *value, *name = astra_config_name(ASTRA_CFG_MAX_SIZE);
	struct astra_buf old = ASTRA_BUF_INIT, out = ASTRA_BUF_INIT, msg = ASTRA_BUF_INIT;
	long long n;
	int next, replaced = 0;
	size_t pos = 0;

	value = command_value(argc, argv, &next);
	if (!value || astra_parse_size(value, &n) < 0 || argc > next) {
		fprintf(stderr, "usage: %s -M SIZE  (or --max-size=SIZE; SIZE like 500M, 2G, 0 for no limit)\n",
			astra_progname);
		return 2;
	}
	if (astra_buf_read_file(&old, path, 1 << 20) < 0 && errno != ENOENT) {
		fprintf(stderr, "%s: cannot read %s: %s\n", astra_progname, path, strerror(errno));
		astra_buf_release(&old);
		return 1;
	}
	/* Keep every other line (and comment) of the file as it is. */
	while (pos < old.len) {
		const char *line = old.buf + pos, *nl = memchr(line, '\n', old.len - pos);
		size_t len = nl ? (size_t)(nl - line) : old.len - pos;
		if (line_sets(line, len, name)) {
			if (!replaced)
				astra_buf_addf(&out, "%s = %s\n", name, value);
			replaced = 1;
		} else {
			astra_buf_add(&out, line, len);
			astra_buf_addch(&out, '\n');
		}
		pos += len + (nl ? 1 : 0);
	}
	if (!replaced)
		astra_buf_addf(&out, "%s = %s\n", name, value);
	if (astra_fsio_write_atomic(path, out.buf, out.len) < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", astra_progname, path, strerror(errno));
		astra_buf_release(&old);
		astra_buf_release(&out);
		return 1;
	}
	if (n > 0) {
		format_size(&msg, n);
		printf("Set cache size limit to %s\n", msg.buf);
	} else {
		printf("Set cache size limit to unlimited\n");
	}
	astra_buf_release(&old);
	astra_buf_release(&out);
	astra_buf_release(&msg);
	return 0;
}

/* ------------------------------------------------------------ cleanup */

static void report_cleanup(const char *what, const struct astra_cleanup_result *r, int json)
{
	struct astra_buf a = ASTRA_BUF_INIT, b = ASTRA_BUF_INIT;
	if (json) {
		struct astra_json *j = astra_json_new_object();
		astra_json_set_num(j, "removed_entries", (double)r->removed_entries);
		astra_json_set_num(j, "removed_bytes", (double)r->removed_bytes);
		astra_json_set_num(j, "swept_files", (double)r->swept);
		astra_json_set_num(j, "entries", (double)r->entries);
		astra_json_set_num(j, "bytes", (double)r->bytes);
		print_json(j);
		astra_json_free(j);
		return;
	}
	format_size(&a, r->removed_bytes);
	format_size(&b, r->bytes);
	printf("%s: removed %lld entries (%s), swept %lld leftover files; %lld entries (%s) left\n", what,
	       r->removed_entries, a.buf, r->swept, r->entries, b.buf);
	astra_buf_release(&a);
	astra_buf_release(&b);
}

int astra_cache_cmd_clear(int argc, char **argv)
{
	struct astra_cache *c = astra_cache_open(NULL);
	struct astra_cleanup_result r;
	if (astra_cache_clear(c, &r) < 0) {
		fprintf(stderr, "%s: cannot clear %s: %s\n", astra_progname, astra_cache_dir(c), strerror(errno));
		return finish(1, c);
	}
	report_cleanup("Cleared the cache", &r, has_flag(argc, argv, "--json"));
	return finish(0, c);
}

int astra_cache_cmd_cleanup(int argc, char **argv)
{
	struct astra_cache *c = astra_cache_open(NULL);
	struct astra_cleanup_result r;
	if (astra_cache_cleanup(c, astra_config_int(ASTRA_CFG_MAX_SIZE), 0, 1, &r) < 0) {
		fprintf(stderr, "%s: cannot clean up %s: %s\n", astra_progname, astra_cache_dir(c), strerror(errno));
		return finish(1, c);
	}
	report_cleanup("Cleaned up the cache", &r, has_flag(argc, argv, "--json"));
	return finish(0, c);
}

int astra_cache_cmd_evict(int argc, char **argv)
{
	struct astra_cache *c;
	struct astra_cleanup_result r;
	const char *value;
	long long age;
	int next;

	value = command_value(argc, argv, &next);
	if (!value || astra_parse_age(value, &age) < 0) {
		fprintf(stderr, "usage: %s --evict-older-than AGE [--json]  (AGE like 3600, 90m, 12h, 30d)\n",
			astra_progname);
		return 2;
	}
	c = astra_cache_open(NULL);
	if (astra_cache_cleanup(c, 0, astra_time() - age, 1, &r) < 0) {
		fprintf(stderr, "%s: cannot clean up %s: %s\n", astra_progname, astra_cache_dir(c), strerror(errno));
		return finish(1, c);
	}
	report_cleanup("Evicted old entries", &r, has_flag(argc, argv, "--json"));
	return finish(0, c);
}
