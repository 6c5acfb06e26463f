/*
 * config.h - astra-cc's settings: environment over config file over default.
 *
 * As in ccache, every setting has a name in the config file (`max_size`),
 * an environment variable (`ASTRA_CC_MAX_SIZE`) and a default.  The config
 * files are read in order (the system one, then the user one), the
 * environment last, and the winner's origin is kept so that
 * `astra-cc --show-config` can say where each value came from.
 *
 * The user config file is $ASTRA_CC_CONFIGPATH if set, else astra-cc.conf
 * in the cache directory (as ccache.conf lives in ccache's).  Its format is
 * `key = value` lines; `#` starts a comment line.
 *
 * Every config file is read only when it is a regular file, without
 * blocking (a FIFO in its place is refused).  The one in the cache
 * directory is also read only when it is no symbolic link and passes
 * astra_trust_config() (lib/trust.h): owned by the user or root, writable
 * by nobody else (by its group only when that is `trusted_group` as the
 * environment or the system file set it).  A refused file is a problem
 * (logged, shown by --show-config), never an error.
 *
 * Without HOME and XDG_CACHE_HOME the cache directory is
 * /tmp/astra-cc-<uid>.  Loading creates it (mode 0700) and checks that it
 * is the user's own directory and private; when it is not (someone else
 * made it first), nothing in it is read and astra-cc is disabled for this
 * process (every compile is plain nvcc), with the reason in the problems.
 */
#ifndef ASTRA_CONFIG_H
#define ASTRA_CONFIG_H

#include <stdio.h>

enum astra_cfg {
	ASTRA_CFG_DIR,          /* cache directory */
	ASTRA_CFG_LOG_FILE,     /* where astra-cc's messages go */
	ASTRA_CFG_MODE,         /* use | optimize | off */
	ASTRA_CFG_DISABLE,      /* bool: behave exactly like nvcc */
	ASTRA_CFG_NVCC,         /* path of the real nvcc */
	ASTRA_CFG_TRACE,        /* trace categories */
	ASTRA_CFG_STRICT,       /* bool: pragma mistakes are errors */
	ASTRA_CFG_MAX_SIZE,     /* cache size limit, bytes (suffixes k M G) */
	ASTRA_CFG_REMOTE_STORAGE, /* secondary tiers: "file:/dir[|read-only] http://host/path/ ..." */
	ASTRA_CFG_REMOTE_CREDENTIALS, /* a netrc file with the HTTP tiers' logins ("": ~/.netrc) */
	ASTRA_CFG_REMOTE_DOWN_TIME, /* seconds a remote tier that timed out or refused is skipped by all */
	ASTRA_CFG_SIGNING_KEY_FILE, /* secret key that signs stored entries (HMAC-SHA256) */
	ASTRA_CFG_REQUIRE_SIGNATURE, /* bool: use only entries whose signature verifies */
	ASTRA_CFG_LOCK_WAIT,    /* seconds to wait for another process's optimization */
	ASTRA_CFG_OPTIMIZER,    /* rules | llm | both */
	ASTRA_CFG_MAX_ROUNDS,   /* rounds of the optimization loop */
	ASTRA_CFG_TIME_BUDGET,  /* seconds per kernel for the loop */
	ASTRA_CFG_DEBUG_KEY,    /* bool: write the hashed text beside the output */
	ASTRA_CFG_JOBS,         /* kernels --warmup optimizes at once (its -j wins) */
	ASTRA_CFG_SANITIZER,    /* bool: run compute-sanitizer when available */
	ASTRA_CFG_LLM_URL,      /* OpenAI-compatible base URL */
	ASTRA_CFG_LLM_MODEL,    /* model name */
	ASTRA_CFG_LLM_TIMEOUT,  /* seconds per request */
	ASTRA_CFG_LLM_API,      /* request format: openai (see agents/provider.h) */
	ASTRA_CFG_LLM_API_KEY,  /* secret: never shown by --show-config */
	ASTRA_CFG_LLM_EXTRA,    /* JSON object merged into every request body */
	ASTRA_CFG_LLM_RETRIES,  /* retries of one request on 429/5xx/connection errors */
	ASTRA_CFG_LLM_REPAIRS,  /* answers sent back to the coding role per candidate */
	ASTRA_CFG_LLM_MAX_CALLS,   /* per-kernel budget: requests */
	ASTRA_CFG_LLM_MAX_TOKENS,  /* per-kernel budget: tokens in + out */
	ASTRA_CFG_LLM_MAX_SECONDS, /* per-kernel budget: wall time in the LLM */
	ASTRA_CFG_TRUSTED_GROUP,   /* a group whose members' cache files are trusted (lib/trust.h) */
	ASTRA_CFG_UMASK,           /* octal umask for what astra-cc creates in the cache */
	ASTRA_CFG_SANDBOX,         /* bool: test programs run in a sandbox (verify/sandbox.h) */
	ASTRA_CFG_CAPTURE,         /* bool: a capture build (launch sites record their launches) */
	ASTRA_CFG_CAPTURE_DATA,    /* bool: a capture build also keeps the inputs of each new shape */
	ASTRA_CFG_CAPTURE_DATA_MAX, /* bytes of captured inputs per kernel (size) */
	ASTRA_CFG_CAPTURE_SHAPES,  /* distinct shapes a capture keeps per kernel */
	ASTRA_CFG_CAPTURE_TEST_SHAPES, /* captured shapes the verifier tests per kernel */
	ASTRA_CFG_COMPILER_CHECK,  /* how the key knows the host compiler's file: content | mtime | none | string:TEXT */
	ASTRA_CFG__COUNT
};

enum astra_mode {
	ASTRA_MODE_USE,
	ASTRA_MODE_OPTIMIZE,
	ASTRA_MODE_OFF,
};

/*
 * Load the configuration (idempotent: a second call reloads).  Problems in
 * config files (an unknown setting) are logged once the log is open, and
 * shown by --show-config; they never stop a build.  A value that does not
 * parse, in a file or the environment, is an error
 * (astra_config_errors()): the command stops, as ccache stops on
 * CCACHE_MAXSIZE=lots.  A boolean environment variable is true unless it
 * is a false word (false, no, off, 0 or empty, any case), as in ccache:
 * ASTRA_CC_DISABLE=maybe disables.
 */
void astra_config_load(void);
/* Release everything astra_config_load() allocated. */
void astra_config_release(void);

const char *astra_config_str(enum astra_cfg key);
int astra_config_bool(enum astra_cfg key);
long long astra_config_int(enum astra_cfg key);
enum astra_mode astra_config_mode(void);
/* "default", "environment: ASTRA_CC_X" or "file:line". */
const char *astra_config_origin(enum astra_cfg key);
const char *astra_config_name(enum astra_cfg key);
/* Path of the user config file (whether it exists or not). */
const char *astra_config_path(void);

/* Override a value (tests, and commands such as --max-size). */
void astra_config_set(enum astra_cfg key, const char *value, const char *origin);

/* Print every setting as `(origin) name = value`, like ccache -p. */
void astra_config_show(FILE *out);
/*
 * Warnings collected while loading, NULL-terminated: whole GNU-style
 * lines ("FILE:LINE: warning: ..." for a config file, "astra-cc: warning:
 * ..." for the environment).  A setting with a problem is ignored.
 */
const char *const *astra_config_problems(void);
/*
 * Values that do not parse, NULL-terminated: whole lines
 * ("astra-cc: error: ASTRA_CC_MAX_SIZE: 'lots' is not a size (...)", or
 * "FILE:LINE: error: max_size: ..."); the setting keeps its weaker value.
 * The driver prints them on stderr and exits 1 before doing anything
 * (astra-cc/main.c): a configuration mistake is the user's, not an
 * internal failure for invariant 1's fallback to nvcc.
 */
const char *const *astra_config_errors(void);

/*
 * Parse a size such as 500M, 2G, 1.5G, 4096 (bytes).  Returns 0 and sets
 * *out, or -1.  Suffixes k/M/G/T are powers of 1024, as in ccache.
 */
int astra_parse_size(const char *s, long long *out);
/* Parse true/false/yes/no/1/0/on/off; -1 if it is none of those. */
int astra_parse_bool(const char *s);

#endif
