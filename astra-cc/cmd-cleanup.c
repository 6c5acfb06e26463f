/*
 * cmd-cleanup.c - -M SIZE, --cleanup, --evict-older-than AGE and -C: the
 * cache's size limit and its chores on the local tier.
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
#include "cache/fsio.h"
#include "cache/stats.h"
#include "cache/store.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/json.h"
#include "lib/workspace.h"
#include "passes/substitute.h"
#include "verify/verify.h"

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
	/* Only a regular file, without blocking on a FIFO in its place. */
	if (astra_buf_read_regular(&old, path, 1 << 20, 0, NULL) < 0 && errno != ENOENT) {
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
		astra_cmd_format_size(&msg, n);
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

/*
 * The workspaces of substituted compiles and verifications that were
 * killed, in TMPDIR: not cache files (so not in the counts), but leftovers
 * of astra-cc's all the same.
 */
static void sweep_workspaces(void)
{
	astra_subst_sweep_workspaces(ASTRA_WORKSPACE_STALE);
	astra_workspace_sweep(ASTRA_VERIFY_WORKSPACE, ASTRA_WORKSPACE_STALE);
}

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
		astra_cmd_print_json(j);
		astra_json_free(j);
		return;
	}
	astra_cmd_format_size(&a, r->removed_bytes);
	astra_cmd_format_size(&b, r->bytes);
	printf("%s: removed %lld entries (%s), swept %lld leftover files; %lld entries (%s) left\n", what,
	       r->removed_entries, a.buf, r->swept, r->entries, b.buf);
	astra_buf_release(&a);
	astra_buf_release(&b);
}

static const char *const json_flag[] = { "--json", NULL };

int astra_cache_cmd_clear(int argc, char **argv)
{
	struct astra_cache *c;
	struct astra_cleanup_result r;
	if (astra_cmd_check_args(argc, argv, json_flag, 0))
		return 2;
	c = astra_cache_open(NULL);
	sweep_workspaces();
	if (astra_cache_clear(astra_cache_local(c), &r) < 0) {
		fprintf(stderr, "%s: cannot clear %s: %s\n", astra_progname, astra_cache_dir(c), strerror(errno));
		return astra_cmd_finish(1, c);
	}
	report_cleanup("Cleared the cache", &r, astra_cmd_has_flag(argc, argv, "--json"));
	return astra_cmd_finish(0, c);
}

int astra_cache_cmd_cleanup(int argc, char **argv)
{
	struct astra_cache *c;
	struct astra_cleanup_result r;
	if (astra_cmd_check_args(argc, argv, json_flag, 0))
		return 2;
	c = astra_cache_open(NULL);
	sweep_workspaces();
	if (astra_cache_cleanup(astra_cache_local(c), astra_config_int(ASTRA_CFG_MAX_SIZE), 0, 1, &r) < 0) {
		fprintf(stderr, "%s: cannot clean up %s: %s\n", astra_progname, astra_cache_dir(c), strerror(errno));
		return astra_cmd_finish(1, c);
	}
	report_cleanup("Cleaned up the cache", &r, astra_cmd_has_flag(argc, argv, "--json"));
	return astra_cmd_finish(0, c);
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
	for (; next < argc; next++)
		if (strcmp(argv[next], "--json"))
			return astra_cmd_usage_error(argv[0], "%s '%s'", argv[next][0] == '-' ?
						     "unrecognized option" : "unexpected argument", argv[next]);
	c = astra_cache_open(NULL);
	if (astra_cache_cleanup(astra_cache_local(c), 0, astra_time() - age, 1, &r) < 0) {
		fprintf(stderr, "%s: cannot clean up %s: %s\n", astra_progname, astra_cache_dir(c), strerror(errno));
		return astra_cmd_finish(1, c);
	}
	report_cleanup("Evicted old entries", &r, astra_cmd_has_flag(argc, argv, "--json"));
	return astra_cmd_finish(0, c);
}
