/*
 * config.c - settings from the environment, config files and defaults.
 *
 * One table lists every setting; loading walks the sources from weakest to
 * strongest so the last writer wins and records its origin.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/trust.h"
#include "lib/util.h"
#include "lib/vec.h"

#ifndef ASTRA_SYSCONFDIR
#define ASTRA_SYSCONFDIR "/etc"
#endif

enum type { T_STR, T_BOOL, T_INT, T_SIZE, T_MODE, T_OPTIMIZER, T_TRACE, T_UMASK, T_CHECK };

static const struct item {
	const char *name;
	const char *env;
	enum type type;
	const char *def; /* NULL: computed */
	int secret;      /* shown as set or unset, never as the value */
} items[ASTRA_CFG__COUNT] = {
	[ASTRA_CFG_DIR] = { "dir", "ASTRA_CC_DIR", T_STR, NULL },
	[ASTRA_CFG_LOG_FILE] = { "log_file", "ASTRA_CC_LOG_FILE", T_STR, "" },
	[ASTRA_CFG_MODE] = { "mode", "ASTRA_CC_MODE", T_MODE, "use" },
	[ASTRA_CFG_DISABLE] = { "disable", "ASTRA_CC_DISABLE", T_BOOL, "false" },
	[ASTRA_CFG_NVCC] = { "nvcc", "ASTRA_CC_NVCC", T_STR, "" },
	[ASTRA_CFG_TRACE] = { "trace", "ASTRA_CC_TRACE", T_TRACE, "" },
	[ASTRA_CFG_STRICT] = { "strict", "ASTRA_CC_STRICT", T_BOOL, "false" },
	[ASTRA_CFG_MAX_SIZE] = { "max_size", "ASTRA_CC_MAX_SIZE", T_SIZE, "1G" },
	[ASTRA_CFG_REMOTE_STORAGE] = { "remote_storage", "ASTRA_CC_REMOTE_STORAGE", T_STR, "" },
	[ASTRA_CFG_REMOTE_CREDENTIALS] = { "remote_credentials", "ASTRA_CC_REMOTE_CREDENTIALS", T_STR, "" },
	[ASTRA_CFG_REMOTE_DOWN_TIME] = { "remote_down_time", "ASTRA_CC_REMOTE_DOWN_TIME", T_INT, "60" },
	[ASTRA_CFG_SIGNING_KEY_FILE] = { "signing_key_file", "ASTRA_CC_SIGNING_KEY_FILE", T_STR, "" },
	[ASTRA_CFG_REQUIRE_SIGNATURE] = { "require_signature", "ASTRA_CC_REQUIRE_SIGNATURE", T_BOOL, "false" },
	[ASTRA_CFG_LOCK_WAIT] = { "lock_wait", "ASTRA_CC_LOCK_WAIT", T_INT, "150" },
	[ASTRA_CFG_OPTIMIZER] = { "optimizer", "ASTRA_CC_OPTIMIZER", T_OPTIMIZER, "rules" },
	[ASTRA_CFG_MAX_ROUNDS] = { "max_rounds", "ASTRA_CC_MAX_ROUNDS", T_INT, "4" },
	[ASTRA_CFG_TIME_BUDGET] = { "time_budget", "ASTRA_CC_TIME_BUDGET", T_INT, "120" },
	[ASTRA_CFG_DEBUG_KEY] = { "debug_key", "ASTRA_CC_DEBUG_KEY", T_BOOL, "false" },
	[ASTRA_CFG_JOBS] = { "jobs", "ASTRA_CC_JOBS", T_INT, NULL },
	[ASTRA_CFG_SANITIZER] = { "sanitizer", "ASTRA_CC_SANITIZER", T_BOOL, "true" },
	[ASTRA_CFG_LLM_URL] = { "llm_url", "ASTRA_CC_LLM_URL", T_STR, "" },
	[ASTRA_CFG_LLM_MODEL] = { "llm_model", "ASTRA_CC_LLM_MODEL", T_STR, "" },
	[ASTRA_CFG_LLM_TIMEOUT] = { "llm_timeout", "ASTRA_CC_LLM_TIMEOUT", T_INT, "120" },
	[ASTRA_CFG_LLM_API] = { "llm_api", "ASTRA_CC_LLM_API", T_STR, "openai" },
	[ASTRA_CFG_LLM_API_KEY] = { "llm_api_key", "ASTRA_CC_LLM_API_KEY", T_STR, "", 1 },
	[ASTRA_CFG_LLM_EXTRA] = { "llm_extra", "ASTRA_CC_LLM_EXTRA", T_STR, "" },
	[ASTRA_CFG_LLM_RETRIES] = { "llm_retries", "ASTRA_CC_LLM_RETRIES", T_INT, "3" },
	[ASTRA_CFG_LLM_REPAIRS] = { "llm_repairs", "ASTRA_CC_LLM_REPAIRS", T_INT, "2" },
	[ASTRA_CFG_LLM_MAX_CALLS] = { "llm_max_calls", "ASTRA_CC_LLM_MAX_CALLS", T_INT, "24" },
	[ASTRA_CFG_LLM_MAX_TOKENS] = { "llm_max_tokens", "ASTRA_CC_LLM_MAX_TOKENS", T_INT, "400000" },
	[ASTRA_CFG_LLM_MAX_SECONDS] = { "llm_max_seconds", "ASTRA_CC_LLM_MAX_SECONDS", T_INT, "900" },
	[ASTRA_CFG_TRUSTED_GROUP] = { "trusted_group", "ASTRA_CC_TRUSTED_GROUP", T_STR, "" },
	[ASTRA_CFG_UMASK] = { "umask", "ASTRA_CC_UMASK", T_UMASK, "" },
	[ASTRA_CFG_SANDBOX] = { "sandbox", "ASTRA_CC_SANDBOX", T_BOOL, "true" },
	[ASTRA_CFG_CAPTURE] = { "capture", "ASTRA_CC_CAPTURE", T_BOOL, "false" },
	[ASTRA_CFG_CAPTURE_DATA] = { "capture_data", "ASTRA_CC_CAPTURE_DATA", T_BOOL, "false" },
	[ASTRA_CFG_CAPTURE_DATA_MAX] = { "capture_data_max", "ASTRA_CC_CAPTURE_DATA_MAX", T_SIZE, "256M" },
	[ASTRA_CFG_CAPTURE_SHAPES] = { "capture_shapes", "ASTRA_CC_CAPTURE_SHAPES", T_INT, "64" },
	[ASTRA_CFG_CAPTURE_TEST_SHAPES] = { "capture_test_shapes", "ASTRA_CC_CAPTURE_TEST_SHAPES", T_INT, "6" },
	[ASTRA_CFG_COMPILER_CHECK] = { "compiler_check", "ASTRA_CC_COMPILER_CHECK", T_CHECK, "content" },
};

static struct value {
	char *value;
	char *origin;
} values[ASTRA_CFG__COUNT];

static char *user_path;
static struct astra_vec problems = ASTRA_VEC_INIT;
static struct astra_vec errors = ASTRA_VEC_INIT;

int astra_parse_bool(const char *s)
{
	static const char *const yes[] = { "true", "yes", "1", "on" };
	static const char *const no[] = { "false", "no", "0", "off", "" };
	size_t i;
	for (i = 0; i < ARRAY_SIZE(yes); i++)
		if (!strcasecmp(s, yes[i]))
			return 1;
	for (i = 0; i < ARRAY_SIZE(no); i++)
		if (!strcasecmp(s, no[i]))
			return 0;
	return -1;
}

int astra_parse_size(const char *s, long long *out)
{
	char *end;
	double v;
	double mult = 1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': mult = 1024.0; end++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
	case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: return -1;
	}
	if (*end == 'i' || *end == 'B')
		end++;
	if (*end == 'B')
		end++;
	if (*end)
		return -1;
	*out = (long long)(v * mult);
	return 0;
}

static int valid(enum type type, const char *v)
{
	long long n;
	char *end;
	switch (type) {
	case T_STR: return 1;
	case T_BOOL: return astra_parse_bool(v) >= 0;
	case T_INT:
		errno = 0;
		n = strtoll(v, &end, 10);
		return *v && !*end && !errno && n >= 0;
	case T_SIZE: return astra_parse_size(v, &n) == 0;
	case T_MODE: return !strcmp(v, "use") || !strcmp(v, "optimize") || !strcmp(v, "off");
	case T_OPTIMIZER: return !strcmp(v, "rules") || !strcmp(v, "llm") || !strcmp(v, "both");
	case T_TRACE: return astra_trace_valid(v);
	case T_UMASK: {
		mode_t m;
		return !*v || astra_trust_parse_umask(v, &m) == 0;
	}
	case T_CHECK:
		return !strcmp(v, "content") || !strcmp(v, "mtime") || !strcmp(v, "none") ||
		       (astra_starts_with(v, "string:") && v[7]);
	}
	return 0;
}

/* What a valid value looks like, for the error about an invalid one. */
static const char *type_hint(enum type type)
{
	switch (type) {
	case T_BOOL: return "true or false";
	case T_INT: return "a whole number";
	case T_SIZE: return "a size (such as 500M or 2G)";
	case T_MODE: return "use, optimize or off";
	case T_OPTIMIZER: return "rules, llm or both";
	case T_TRACE: return "a list of trace categories (driver, cache, extract, verify, loop, llm, exec, all) separated by commas";
	case T_UMASK: return "an octal umask (such as 002)";
	case T_CHECK: return "content, mtime, none or string:TEXT";
	case T_STR: break;
	}
	return "";
}

void astra_config_set(enum astra_cfg key, const char *value, const char *origin)
{
	free(values[key].value);
	free(values[key].origin);
	values[key].value = xstrdup(value);
	values[key].origin = xstrdup(origin);
}

/* The default cache directory; *shared_tmp is set when it is the per-user one in /tmp. */
static char *default_dir(int *shared_tmp)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	*shared_tmp = 0;
	if (xdg && *xdg)
		return xasprintf("%s/astra-cc", xdg);
	if (home && *home)
		return xasprintf("%s/.cache/astra-cc", home);
	/*
	 * /tmp is everybody's: the name has the uid in it, and the directory
	 * is used only when it is the user's own and private (claim_private).
	 */
	*shared_tmp = 1;
	return xasprintf("/tmp/astra-cc-%u", (unsigned)geteuid());
}

/*
 * Make dir (mode 0700) unless it exists, then check that it is a directory
 * of the user's (no symbolic link) that nobody else can enter, making a
 * directory of the user's private if an older astra-cc left it open.
 * Anyone may create a name in /tmp first: 0, or -1 with the reason in why.
 */
static int claim_private(const char *dir, struct astra_buf *why)
{
	struct stat st;
	int fd;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		astra_buf_addf(why, "cannot create it: %s", strerror(errno));
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		astra_buf_addf(why, "%s", errno == ELOOP || errno == ENOTDIR ? "it is not a directory (a symbolic link?)"
									       : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		astra_buf_addf(why, "it belongs to uid %u, not to you", (unsigned)st.st_uid);
		close(fd);
		return -1;
	}
	if ((st.st_mode & 077) && fchmod(fd, 0700) < 0) {
		astra_buf_addf(why, "others can enter it and it cannot be made private: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static char *default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return xasprintf("%ld", n > 0 ? n : 1);
}

static int find_key(const char *name)
{
	int i;
	for (i = 0; i < ASTRA_CFG__COUNT; i++)
		if (!strcmp(items[i].name, name))
			return i;
	return -1;
}

/* How much a config file is trusted (see config.h). */
enum source {
	SRC_CHOSEN,  /* the system file, or one the environment names: read as it is */
	SRC_CACHE,   /* the cache directory's: no symbolic link, and astra_trust_config() */
};

static void read_file(const char *path, enum source src, long long trusted_gid)
{
	struct astra_buf b = ASTRA_BUF_INIT, why = ASTRA_BUF_INIT;
	struct stat st;
	char *line, *next;
	unsigned lineno = 0;

	if (astra_buf_read_regular(&b, path, 1 << 20, src == SRC_CACHE, &st) < 0) {
		if (errno == ELOOP && src == SRC_CACHE)
			astra_vec_pushf(&problems, "%s: warning: not read: it is a symbolic link", path);
		else if (errno == EINVAL)
			astra_vec_pushf(&problems, "%s: warning: not read: it is not a regular file", path);
		else if (errno != ENOENT && errno != ENOTDIR)
			astra_vec_pushf(&problems, "%s: warning: cannot read: %s", path, strerror(errno));
		astra_buf_release(&b);
		return;
	}
	if (src == SRC_CACHE && !astra_trust_config(st.st_uid, st.st_gid, st.st_mode, trusted_gid, &why)) {
		astra_vec_pushf(&problems, "%s: warning: not read: %s (see \"Sharing a cache\" in doc/cache.md)", path, why.buf);
		astra_buf_release(&why);
		astra_buf_release(&b);
		return;
	}
	astra_buf_release(&why);
	for (line = b.buf; line && *line; line = next) {
		char *eq, *k, *v, *e;
		int key;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		while (isspace((unsigned char)*line))
			line++;
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			astra_vec_pushf(&problems, "%s:%u: warning: expected `key = value`; line ignored", path, lineno);
			continue;
		}
		*eq = '\0';
		k = line;
		v = eq + 1;
		for (e = eq; e > k && isspace((unsigned char)e[-1]); e--)
			;
		*e = '\0';
		while (isspace((unsigned char)*v))
			v++;
		for (e = v + strlen(v); e > v && isspace((unsigned char)e[-1]); e--)
			;
		*e = '\0';
		key = find_key(k);
		if (key < 0) {
			astra_vec_pushf(&problems, "%s:%u: warning: unknown setting `%s`; ignored", path, lineno, k);
			continue;
		}
		if (!valid(items[key].type, v)) {
			astra_vec_pushf(&errors, "%s:%u: error: %s: '%s' is not %s", path, lineno, k, v,
					type_hint(items[key].type));
			continue;
		}
		{
			char *origin = xasprintf("%s:%u", path, lineno);
			astra_config_set(key, v, origin);
			free(origin);
		}
	}
	astra_buf_release(&b);
}

void astra_config_release(void)
{
	int i;
	for (i = 0; i < ASTRA_CFG__COUNT; i++) {
		free(values[i].value);
		free(values[i].origin);
		values[i].value = values[i].origin = NULL;
	}
	free(user_path);
	user_path = NULL;
	astra_vec_clear(&problems);
	astra_vec_clear(&errors);
}

/*
 * The trusted group for judging the cache's config file: the environment's
 * or the system file's setting, never the file's own.  -1: none.
 */
static long long early_trusted_gid(void)
{
	const char *env = getenv(items[ASTRA_CFG_TRUSTED_GROUP].env);
	gid_t g;
	if (env)
		astra_config_set(ASTRA_CFG_TRUSTED_GROUP, env, "environment: ASTRA_CC_TRUSTED_GROUP");
	return astra_trust_group(&g) == 1 ? (long long)g : -1;
}

void astra_config_load(void)
{
	int i, shared_tmp = 0, refused = 0;
	const char *p, *envdir;
	struct astra_buf why = ASTRA_BUF_INIT;

	astra_config_release();
	for (i = 0; i < ASTRA_CFG__COUNT; i++) {
		char *def = NULL;
		if (items[i].def)
			def = xstrdup(items[i].def);
		else if (i == ASTRA_CFG_DIR)
			def = default_dir(&shared_tmp);
		else if (i == ASTRA_CFG_JOBS)
			def = default_jobs();
		astra_config_set(i, def ? def : "", "default");
		free(def);
	}

	read_file(ASTRA_SYSCONFDIR "/astra-cc.conf", SRC_CHOSEN, -1);
	/* The user file lives in the cache directory, which the environment
	 * (but not the file itself) may move. */
	p = getenv("ASTRA_CC_CONFIGPATH");
	envdir = getenv("ASTRA_CC_DIR");
	shared_tmp = shared_tmp && !(envdir && *envdir) && !strcmp(values[ASTRA_CFG_DIR].origin, "default");
	if (shared_tmp && claim_private(values[ASTRA_CFG_DIR].value, &why) < 0) {
		astra_vec_pushf(&problems, "%s: not used as the cache: %s; astra-cc is disabled (set ASTRA_CC_DIR)",
				values[ASTRA_CFG_DIR].value, why.buf);
		refused = 1;
	}
	astra_buf_release(&why);
	if (p && *p) {
		user_path = xstrdup(p);
		read_file(user_path, SRC_CHOSEN, -1);
	} else {
		user_path = xasprintf("%s/astra-cc.conf", envdir && *envdir ? envdir : values[ASTRA_CFG_DIR].value);
		if (!refused)
			read_file(user_path, SRC_CACHE, early_trusted_gid());
	}

	for (i = 0; i < ASTRA_CFG__COUNT; i++) {
		const char *v = getenv(items[i].env);
		char *origin;
		if (!v)
			continue;
		/*
		 * A boolean variable is true unless it says false (ccache's
		 * rule): ASTRA_CC_DISABLE=maybe disables.  astra_config_bool()
		 * reads it so.
		 */
		if (items[i].type != T_BOOL && !valid(items[i].type, v)) {
			astra_vec_pushf(&errors, "astra-cc: error: %s: '%s' is not %s", items[i].env, v,
					type_hint(items[i].type));
			continue;
		}
		origin = xasprintf("environment: %s", items[i].env);
		astra_config_set(i, v, origin);
		free(origin);
	}
	/* After the environment: nothing may turn a refused directory back on. */
	if (refused)
		astra_config_set(ASTRA_CFG_DISABLE, "true", "default: the cache directory is not yours (see above)");
}

static void ensure_loaded(void)
{
	if (!values[0].value)
		astra_config_load();
}

const char *astra_config_str(enum astra_cfg key)
{
	ensure_loaded();
	return values[key].value;
}

int astra_config_bool(enum astra_cfg key)
{
	/* Only the environment can hold a word that is neither (see the load). */
	return astra_parse_bool(astra_config_str(key)) != 0;
}

long long astra_config_int(enum astra_cfg key)
{
	const char *v = astra_config_str(key);
	long long n = 0;
	if (items[key].type == T_SIZE) {
		if (astra_parse_size(v, &n) < 0)
			n = 0;
		return n;
	}
	return strtoll(v, NULL, 10);
}

enum astra_mode astra_config_mode(void)
{
	const char *m = astra_config_str(ASTRA_CFG_MODE);
	if (!strcmp(m, "optimize"))
		return ASTRA_MODE_OPTIMIZE;
	if (!strcmp(m, "off"))
		return ASTRA_MODE_OFF;
	return ASTRA_MODE_USE;
}

const char *astra_config_origin(enum astra_cfg key)
{
	ensure_loaded();
	return values[key].origin;
}

const char *astra_config_name(enum astra_cfg key)
{
	return items[key].name;
}

const char *astra_config_path(void)
{
	ensure_loaded();
	return user_path;
}

const char *const *astra_config_problems(void)
{
	static const char *none[1];
	size_t i;
	ensure_loaded();
	/* A problem may quote a value: a URL's password is not shown (idempotent). */
	for (i = 0; i < problems.nr; i++) {
		struct astra_buf b = ASTRA_BUF_INIT;
		astra_buf_adds(&b, problems.v[i]);
		astra_buf_redact_userinfo(&b);
		if (strcmp(b.buf, problems.v[i])) {
			free(problems.v[i]);
			problems.v[i] = astra_buf_detach(&b, NULL);
		}
		astra_buf_release(&b);
	}
	return problems.nr ? (const char *const *)problems.v : none;
}

const char *const *astra_config_errors(void)
{
	static const char *none[1];
	ensure_loaded();
	return errors.nr ? (const char *const *)errors.v : none;
}

void astra_config_show(FILE *out)
{
	int i;
	const char *const *pr;
	ensure_loaded();
	for (i = 0; i < ASTRA_CFG__COUNT; i++) {
		const char *v = values[i].value;
		if (items[i].secret)
			v = *v ? "(set, not shown)" : "";
		/* A URL's query may hold a key (llm_url = ...?api-key=...): not shown either. */
		if (i == ASTRA_CFG_LLM_URL && strchr(v, '?')) {
			fprintf(out, "(%s) %s = %.*s?(query not shown)\n", values[i].origin, items[i].name,
				(int)strcspn(v, "?"), v);
			continue;
		}
		{
			/* A URL's password is not shown (remote_storage, llm_url, anything). */
			struct astra_buf b = ASTRA_BUF_INIT;
			astra_buf_adds(&b, v);
			astra_buf_redact_userinfo(&b);
			fprintf(out, "(%s) %s = %s\n", values[i].origin, items[i].name, b.buf);
			astra_buf_release(&b);
		}
	}
	for (pr = astra_config_problems(); *pr; pr++)
		fprintf(out, "%s\n", *pr);
}
