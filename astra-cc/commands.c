/*
 * commands.c - the table of astra-cc's own commands, and the small ones
 * that belong to the driver itself (--help, --version, --show-config,
 * statistics).  Bigger commands are implemented in their modules.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "astra-cc/commands.h"
#include "lib/config.h"
#include "lib/locate.h"
#include "lib/run.h"
#include "cache/stats.h"
#include "astra-cc/cmd-capture.h"
#include "astra-cc/cmd-list-kernels.h"
#include "astra-cc/cmd-cache.h"
#include "astra-cc/cmd-with-variant.h"
#include "astra-cc/cmd-warmup.h"
#include "astra-cc/cmd-verify.h"
#include "astra-cc/cmd-explain.h"
#include "astra-cc/cmd-report.h"
#include "astra-cc/cmd-util.h"

static int cmd_help(int argc, char **argv);

static int cmd_version(int argc, char **argv)
{
	const char *why;
	char *nvcc;
	int ret = 0;
	if (astra_cmd_check_args(argc, argv, NULL, 0))
		return 2;
	nvcc = astra_locate_nvcc(0, &why);
	if (nvcc) {
		char *args[] = { nvcc, argv[0], NULL };
		fflush(stdout);
		ret = astra_run(args, NULL);
		free(nvcc);
	}
	/*
	 * CMake reads the banner above; this line must not look like nvcc's
	 * ("release X.Y", "VX.Y.Z") so that it cannot change what CMake finds.
	 */
	printf("astra-cc %s (wrapper; real nvcc: %s)\n", PACKAGE_VERSION, nvcc ? "found" : why);
	if (!nvcc) {
		/* A compiler that cannot compile: CMake's identification must fail here, not later. */
		fflush(stdout);
		fprintf(stderr, "%s: cannot find the real nvcc: %s\n", astra_progname, why);
		return 127;
	}
	return ret;
}

static int cmd_show_config(int argc, char **argv)
{
	if (astra_cmd_check_args(argc, argv, NULL, 0))
		return 2;
	printf("(config file: %s)\n", astra_config_path());
	astra_config_show(stdout);
	return 0;
}

static const struct astra_command commands[] = {
	{ "--help", NULL, cmd_help, "", "show this help" },
	{ "--version", NULL, cmd_version, "", "nvcc's version banner, then astra-cc's" },
	{ "--show-config", NULL, cmd_show_config, "", "every setting, its value and where it came from" },
	{ "--show-stats", "-s", astra_cache_cmd_show_stats, "[--json]", "statistics" },
	{ "--zero-stats", "-z", astra_cache_cmd_zero_stats, "", "zero the statistics" },
	{ "--list", NULL, astra_cache_cmd_list, "[--json]", "the cache's entries: kernel, verdict, speedup, device, age" },
	{ "--show-entry", NULL, astra_cache_cmd_show_entry, "KEY [--arch sm_XX]",
	  "an entry's manifest and variant [--transcript] [--json]" },
	{ "--max-size", "-M", astra_cache_cmd_max_size, "SIZE", "set the cache size limit (0: none)" },
	{ "--cleanup", NULL, astra_cache_cmd_cleanup, "[--json]", "bring the cache under its size limit" },
	{ "--evict-older-than", NULL, astra_cache_cmd_evict, "AGE [--json]", "remove entries unused for AGE (30d, 12h)" },
	{ "--clear", "-C", astra_cache_cmd_clear, "[--json]", "remove every cache entry" },
	{ "--list-kernels", NULL, astra_list_kernels, "FILE.cu [nvcc flags] [--json] [--key-text]",
	  "annotated kernels: location, pragma, dependencies, key" },
	{ "--with-variant", NULL, astra_with_variant, "NAME=FILE [...] -- NVCC ...",
	  "compile with a hand-written variant of kernel NAME (not verified!)" },
	{ "--verify", NULL, astra_verify_command, "FILE.cu --kernel NAME --candidate V.cu [--json] [nvcc flags]",
	  "judge hand-written variants of a kernel: verdict and evidence" },
	{ "--judge-timing", NULL, astra_verify_judge_command, "FILE [--json]",
	  "apply the timing rule to a saved test-program run (checking measurements)" },
	{ "--warmup", NULL, astra_cmd_warmup,
	  "[-j N] [--rounds N] [--no-run] [--measure-all] [--json F] [--[no-]progress] [--gpus LIST] [-p DIR | FILE.cu... [-- NVCC FLAGS]]",
	  "optimize annotated kernels now, on every GPU (the queue, a compile_commands.json, or files); "
	  "--plan FILE [--gres SPEC|none], --item N --plan FILE, --report --plan FILE: on a cluster (doc/cluster.md)" },
	{ "--capture", NULL, astra_cmd_capture, "[--data] [--] NVCC ...",
	  "compile as a capture build: the program records its kernels' launches" },
	{ "--explain", NULL, astra_cmd_explain, "FILE.cu [nvcc flags] [--cc XX]",
	  "which rules apply to each annotated kernel, and why the others do not" },
	{ "--report", NULL, astra_cmd_report, "DIR [--report-json F] [-p DIR | FILE.cu... [-- NVCC FLAGS]]",
	  "a static HTML report of the cache's kernels: variants, charts, evidence" },
	{ "--report-json", NULL, astra_cmd_report, "FILE [--report DIR] [...]", "the same report as JSON (FILE - : stdout)" },
};

const struct astra_command *astra_command_find(int argc, char **argv)
{
	size_t i;
	if (argc < 2)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		const struct astra_command *c = &commands[i];
		size_t n = strlen(c->lng);
		/* `-M` alone is nvcc's dependency option; see astra-cc/cmd-cache.h. */
		if (c->shrt && !strcmp(c->shrt, "-M") && !strcmp(argv[1], "-M"))
			return astra_cache_cmd_is_max_size(argc, argv) ? c : NULL;
		if (!strcmp(argv[1], c->lng) || (c->shrt && !strcmp(argv[1], c->shrt)))
			return c;
		/* --max-size=SIZE: a value attached to a long command name. */
		if (!strncmp(argv[1], c->lng, n) && argv[1][n] == '=' && *c->args && c->args[0] != '[')
			return c;
	}
	return NULL;
}

void astra_command_usage(FILE *out)
{
	size_t i;
	fprintf(out,
		"Usage: astra-cc [nvcc options] FILE...      (as NVCC=astra-cc, or a symlink named nvcc)\n"
		"       astra-cc nvcc [nvcc options] FILE... (as a compiler launcher)\n"
		"       astra-cc COMMAND [ARGS]\n"
		"\n"
		"astra-cc wraps nvcc.  Kernels annotated with `#pragma astra` are optimized once\n"
		"per source hash and the verified faster variant is substituted on later builds;\n"
		"everything else is passed to nvcc unchanged.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		char *lhs = xasprintf("%s%s%s %s", commands[i].shrt ? commands[i].shrt : "",
				      commands[i].shrt ? ", " : "", commands[i].lng, commands[i].args);
		fprintf(out, "  %-34s %s\n", lhs, commands[i].help);
		free(lhs);
	}
	fprintf(out, "\nSettings: see `astra-cc --show-config` and astra-cc(1).\n");
}

static int cmd_help(int argc, char **argv)
{
	if (astra_cmd_check_args(argc, argv, NULL, 0))
		return 2;
	astra_command_usage(stdout);
	return 0;
}
