/*
 * main.c - the astra-cc driver: decide how we were called, then either run
 * one of astra-cc's own commands or wrap one nvcc command.
 *
 * Three invocation forms (see doc/astra-cc.1):
 *   masquerade  NVCC=astra-cc, or a symlink named nvcc:  astra-cc -c k.cu
 *   launcher    astra-cc nvcc -c k.cu, CMAKE_CUDA_COMPILER_LAUNCHER=astra-cc
 *   compiler    CMAKE_CUDA_COMPILER=astra-cc (masquerade, seen by CMake)
 *
 * Whatever happens inside astra-cc, the user's build must behave as if nvcc
 * ran: every failure of astra-cc's own work ends in executing the unmodified
 * command (astra_driver_passthrough), including die() through a hook.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/policy.h"
#include "astra-cc/commands.h"
#include "astra-cc/driver.h"
#include "astra-cc/split.h"
#include "cache/stats.h"
#include "front/includes.h"
#include "lib/config.h"
#include "lib/locate.h"
#include "lib/log.h"
#include "lib/run.h"
#include "passes/ccache.h"
#include "passes/pipeline.h"

static struct astra_invocation *current;

void astra_driver_passthrough(struct astra_invocation *inv)
{
	struct astra_vec cmd = ASTRA_VEC_INIT;
	astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));
	astra_invocation_command(inv, inv->argv.v, inv->argv.nr, &cmd);
	/* A launcher gets the compiler's resolved path: the guard follows the compiler. */
	astra_guard_prepare(inv->nvcc);
	astra_exec(cmd.v);
	fprintf(stderr, "%s: cannot execute %s: %s\n", astra_progname, cmd.v[0], strerror(errno));
	exit(127);
}

/*
 * Problems with the settings (an unknown name in a config file, a bad
 * value in the environment): on stderr for astra-cc's own commands, in the
 * log during a wrapped compile (its stderr is nvcc's).
 */
static void report_config_problems(int to_stderr)
{
	const char *const *problem;
	for (problem = astra_config_problems(); *problem; problem++) {
		if (to_stderr)
			fprintf(stderr, "%s\n", *problem);
		else
			astra_log(ASTRA_LOG_INFO, "%s", *problem);
	}
}

/*
 * A value that does not parse stops every command, a wrapped compile
 * included, with exit status 1 and the errors on stderr: ccache's choice
 * (it fails the compile for CCACHE_MAXSIZE=lots).  Invariant 1's
 * fallback to plain nvcc is for astra-cc's own failures; a mistyped
 * setting would otherwise go unseen (a compile's warnings go to the log)
 * and a build would quietly run without the cache, or with it where
 * ASTRA_CC_DISABLE=... meant to turn it off.  See doc/cache.md.
 */
static void stop_on_config_errors(void)
{
	const char *const *e = astra_config_errors();
	if (!*e)
		return;
	for (; *e; e++) {
		fprintf(stderr, "%s\n", *e);
		astra_log(ASTRA_LOG_INFO, "%s", *e);
	}
	exit(1);
}

static void die_hook(const char *msg)
{
	struct astra_invocation *inv = current;
	(void)msg;
	if (!inv)
		return;
	current = NULL;
	astra_stats_inc(ASTRA_STAT_FALLBACK_INTERNAL);
	astra_driver_passthrough(inv);
}

/*
 * Launcher form: `astra-cc WORD ...` where WORD names a program.  nvcc
 * takes a file as an input by its suffix alone and refuses every other
 * name, so WORD is a program only when it is not an option, has no suffix
 * nvcc takes (a library, an object or a source is an input even when it is
 * executable), and is an executable file: named by a path, or found on
 * PATH as a shell finds it (the current directory only where PATH says
 * so).  Returns its path (malloc'd) or NULL.
 */
static char *program_word(const char *arg)
{
	struct stat st;
	char *path;
	if (!arg[0] || arg[0] == '-' || astra_nvcc_takes_input(arg))
		return NULL;
	path = astra_which(arg);
	if (path && (stat(path, &st) < 0 || !S_ISREG(st.st_mode))) {
		free(path);
		path = NULL;
	}
	return path;
}

/*
 * How many leading words of argv[1..] are programs: a chain of launchers
 * ending with the compiler (`astra-cc ccache nvcc ...`).  The chain ends at
 * the first word named nvcc*, or at the last program word.  0: masquerade.
 */
static int program_words(int argc, char **argv)
{
	int n = 0;
	char *p;
	while (1 + n < argc && n < 4 && (p = program_word(argv[1 + n])) != NULL) {
		free(p);
		n++;
		if (astra_starts_with(astra_basename(argv[n]), "nvcc"))
			break;
	}
	return n;
}

/*
 * Prepare inv->nvcc, inv->argv and inv->launcher.  argv[0] is what the user
 * named as the compiler (the launcher form) or astra-cc itself (masquerade:
 * compiler NULL); launcher[0..nr_launcher) are the programs named before it.
 */
static void setup_invocation(struct astra_invocation *inv, char **launcher, int nr_launcher,
			     const char *compiler, int argc, char **argv)
{
	const char *why = NULL;
	int guarded = astra_guard_active();
	int i;

	memset(inv, 0, sizeof(*inv));
	astra_vec_init(&inv->launcher);
	for (i = 0; i < nr_launcher; i++) {
		char *path = astra_which(launcher[i]);
		astra_vec_push(&inv->launcher, path ? path : launcher[i]);
		free(path);
	}
	if (compiler && !guarded) {
		char *path = astra_which(compiler);
		if (path && !astra_is_self(path))
			inv->nvcc = path;
		else
			free(path);
	}
	if (!inv->nvcc)
		inv->nvcc = astra_locate_nvcc(guarded, &why);
	if (!inv->nvcc) {
		fprintf(stderr, "%s: cannot find the real nvcc: %s\n", astra_progname, why);
		exit(127);
	}
	astra_vec_init(&inv->argv);
	astra_vec_push(&inv->argv, inv->nvcc);
	for (i = 1; i < argc; i++)
		astra_vec_push(&inv->argv, argv[i]);
}

/* Wrap one nvcc command: args are argv[1..] as nvcc should see them. */
/* Does inv's input, or a project header it includes, mention the pragma? */
static int annotated(const struct astra_invocation *inv)
{
	struct astra_search_path sp;
	int found;
	memset(&sp, 0, sizeof(sp));
	astra_search_path_from_cmdline(&inv->cl, &sp);
	found = astra_pipeline_mentions_pragma(inv->cl.inputs.v[0], &sp);
	astra_search_path_release(&sp);
	return found;
}

/*
 * Under ccache (passes/ccache.h): its preprocessor run of an annotated file
 * is answered with what the compile would substitute, whatever the
 * settings (ccache must not reuse an object made under other settings);
 * in its depend mode, ccache would cache the object without asking, so the
 * original is compiled.  Returns 1 when ccache's depend mode is in use.
 */
static int under_ccache(struct astra_invocation *inv, int guarded)
{
	char *ccache;
	int depend = 0;
	if (guarded || !(ccache = astra_ccache_parent()))
		return 0;
	if (astra_ccache_is_preprocess(inv)) {
		if (annotated(inv)) {
			astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));
			exit(astra_ccache_preprocess(inv));
		}
	} else if (!inv->cl.reason && annotated(inv) && astra_ccache_depend_mode(ccache, inv)) {
		warning("%s: ccache's depend mode cannot see substitutions; compiling the original "
			"(see doc/ccache.md)", inv->cl.inputs.v[0]);
		depend = 1;
	}
	free(ccache);
	return depend;
}

/* Wrap one nvcc command: args are argv[1..] as nvcc should see them. */
static int wrap(char **launcher, int nr_launcher, const char *compiler, int argc, char **argv)
{
	static struct astra_invocation inv;
	int guarded = astra_guard_active();
	int ret;

	setup_invocation(&inv, launcher, nr_launcher, compiler, argc, argv);
	astra_cmdline_parse(&inv.cl, (int)inv.argv.nr, inv.argv.v);
	if (under_ccache(&inv, guarded)) {
		/* The original, and a dependency file that keeps ccache from recording it (passes/ccache.h). */
		astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));
		exit(astra_ccache_depend_compile(&inv));
	}
	if (guarded || astra_config_bool(ASTRA_CFG_DISABLE) || astra_config_mode() == ASTRA_MODE_OFF)
		astra_driver_passthrough(&inv);

	current = &inv;
	astra_die_hook = die_hook;
	if (inv.cl.link && astra_driver_split(&inv) == 0) {
		current = NULL;
		astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));
		return 0;
	}
	if (inv.cl.reason) {
		astra_trace(ASTRA_TRACE_DRIVER, "passthrough: %s", inv.cl.reason);
		astra_driver_passthrough(&inv);
	}
	if (!annotated(&inv)) {
		astra_trace(ASTRA_TRACE_DRIVER, "passthrough: %s has no #pragma astra", inv.cl.inputs.v[0]);
		astra_driver_passthrough(&inv);
	}
	/* On a miss in mode=optimize, the loop runs now (the build path never includes it). */
	astra_pipeline_set_optimizer(astra_policy_optimize_now);
	ret = astra_pipeline_compile(&inv);
	if (ret < 0)
		astra_driver_passthrough(&inv);
	current = NULL;
	astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));
	return ret;
}

int main(int argc, char **argv)
{
	const char *self = astra_basename(argv[0]);
	const struct astra_command *cmd;

	astra_guard_drop_stale();
	astra_config_load();
	astra_log_open(astra_config_str(ASTRA_CFG_LOG_FILE), astra_config_str(ASTRA_CFG_TRACE));
	stop_on_config_errors();

	/* Called as nvcc (a symlink) or under the guard: only ever nvcc. */
	if (!astra_starts_with(self, "astra-cc") || astra_guard_active()) {
		report_config_problems(0);
		return wrap(NULL, 0, NULL, argc, argv);
	}

	cmd = astra_command_find(argc, argv);
	if (cmd) {
		report_config_problems(1);
		return cmd->fn(argc - 1, argv + 1);
	}
	if (argc < 2) {
		astra_command_usage(stderr);
		return 2;
	}
	report_config_problems(0);
	return astra_driver_wrap_words(argc, argv);
}

int astra_driver_wrap_words(int argc, char **argv)
{
	int n = program_words(argc, argv);
	if (n)
		return wrap(argv + 1, n - 1, argv[n], argc - n, argv + n);
	return wrap(NULL, 0, NULL, argc, argv);
}
