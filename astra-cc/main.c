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
#include "cache/stats.h"
#include "front/includes.h"
#include "lib/config.h"
#include "lib/locate.h"
#include "lib/log.h"
#include "lib/run.h"
#include "passes/pipeline.h"

static struct astra_invocation *current;

void astra_driver_passthrough(struct astra_invocation *inv)
{
	astra_stats_flush(astra_config_str(ASTRA_CFG_DIR));
	setenv(ASTRA_GUARD_ENV, "1", 1);
	astra_exec(inv->argv.v);
	fprintf(stderr, "%s: cannot execute %s: %s\n", astra_progname, inv->nvcc, strerror(errno));
	exit(127);
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

/* Is arg the compiler of a launcher invocation (astra-cc nvcc ...)? */
static int names_compiler(const char *arg)
{
	const char *base = astra_basename(arg);
	struct stat st;
	if (arg[0] == '-' || !arg[0])
		return 0;
	if (astra_starts_with(base, "nvcc"))
		return 1;
	/* Any other executable that is not an input file (ccache, a script). */
	if (strchr(base, '.') && (astra_ends_with(base, ".cu") || astra_ends_with(base, ".o") ||
				  astra_ends_with(base, ".cpp") || astra_ends_with(base, ".c")))
		return 0;
	return stat(arg, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/*
 * Prepare inv->nvcc and inv->argv.  `compiler` is what the user named (the
 * launcher's first argument) or NULL (masquerade).
 */
static void setup_invocation(struct astra_invocation *inv, const char *compiler, int argc, char **argv)
{
	const char *why = NULL;
	int guarded = astra_getenv(ASTRA_GUARD_ENV) != NULL;
	int i;

	inv->nvcc = NULL;
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
static int wrap(const char *compiler, int argc, char **argv)
{
	static struct astra_invocation inv;
	int guarded = astra_getenv(ASTRA_GUARD_ENV) != NULL;
	int ret;

	setup_invocation(&inv, compiler, argc, argv);
	if (guarded || astra_config_bool(ASTRA_CFG_DISABLE) || astra_config_mode() == ASTRA_MODE_OFF)
		astra_driver_passthrough(&inv);

	current = &inv;
	astra_die_hook = die_hook;
	astra_cmdline_parse(&inv.cl, (int)inv.argv.nr, inv.argv.v);
	if (inv.cl.reason) {
		astra_trace(ASTRA_TRACE_DRIVER, "passthrough: %s", inv.cl.reason);
		astra_driver_passthrough(&inv);
	}
	{
		struct astra_search_path sp;
		int annotated;
		memset(&sp, 0, sizeof(sp));
		astra_search_path_from_cmdline(&inv.cl, &sp);
		annotated = astra_pipeline_mentions_pragma(inv.cl.inputs.v[0], &sp);
		astra_search_path_release(&sp);
		if (!annotated) {
			astra_trace(ASTRA_TRACE_DRIVER, "passthrough: %s has no #pragma astra", inv.cl.inputs.v[0]);
			astra_driver_passthrough(&inv);
		}
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
	const char *const *problem;

	astra_config_load();
	astra_log_open(astra_config_str(ASTRA_CFG_LOG_FILE), astra_config_str(ASTRA_CFG_TRACE));
	for (problem = astra_config_problems(); *problem; problem++)
		warning("%s", *problem);

	/* Called as nvcc (a symlink) or under the guard: only ever nvcc. */
	if (!astra_starts_with(self, "astra-cc") || astra_getenv(ASTRA_GUARD_ENV))
		return wrap(NULL, argc, argv);

	cmd = astra_command_find(argc, argv);
	if (cmd)
		return cmd->fn(argc - 1, argv + 1);
	if (argc < 2) {
		astra_command_usage(stderr);
		return 2;
	}
	if (names_compiler(argv[1]))
		return wrap(argv[1], argc - 1, argv + 1);
	return wrap(NULL, argc, argv);
}
