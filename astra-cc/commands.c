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

#include "astra-cc/buf.h"
#include "astra-cc/commands.h"
#include "astra-cc/config.h"
#include "astra-cc/locate.h"
#include "astra-cc/run.h"
#include "cache/stats.h"
#include "passes/listkernels.h"
#include "rules/explain.h"

static int cmd_help(int argc, char **argv);

static int cmd_version(int argc, char **argv)
{
	const char *why;
	char *nvcc = astra_locate_nvcc(0, &why);
	int ret = 0;
	(void)argc;
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
	return ret;
}

static int cmd_show_config(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("(config file: %s)\n", astra_config_path());
	astra_config_show(stdout);
	return 0;
}

static int has_flag(int argc, char **argv, const char *flag)
{
	int i;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], flag))
			return 1;
	return 0;
}

static int cmd_show_stats(int argc, char **argv)
{
	long long v[ASTRA_STAT__COUNT];
	const char *dir = astra_config_str(ASTRA_CFG_DIR);
	int i, json = has_flag(argc, argv, "--json");

	astra_stats_read(dir, v);
	if (json) {
		struct astra_buf b = ASTRA_BUF_INIT;
		astra_buf_adds(&b, "{\"cache_dir\": \"");
		astra_buf_add_json_escaped(&b, dir);
		astra_buf_adds(&b, "\"");
		for (i = 0; i < ASTRA_STAT__COUNT; i++)
			astra_buf_addf(&b, ", \"%s\": %lld", astra_stat_name(i), v[i]);
		astra_buf_adds(&b, "}\n");
		fputs(b.buf, stdout);
		astra_buf_release(&b);
		return 0;
	}
	printf("cache directory      %s\n", dir);
	for (i = 0; i < ASTRA_STAT__COUNT; i++)
		printf("%-32s %lld\n", astra_stat_name(i), v[i]);
	return 0;
}

static int cmd_zero_stats(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (astra_stats_zero(astra_config_str(ASTRA_CFG_DIR)) < 0) {
		fprintf(stderr, "%s: cannot zero the statistics in %s\n", astra_progname,
			astra_config_str(ASTRA_CFG_DIR));
		return 1;
	}
	printf("statistics zeroed\n");
	return 0;
}

static const struct astra_command commands[] = {
	{ "--help", NULL, cmd_help, "", "show this help" },
	{ "--version", NULL, cmd_version, "", "nvcc's version banner, then astra-cc's" },
	{ "--show-config", NULL, cmd_show_config, "", "every setting, its value and where it came from" },
	{ "--show-stats", "-s", cmd_show_stats, "[--json]", "statistics" },
	{ "--zero-stats", "-z", cmd_zero_stats, "", "zero the statistics" },
	{ "--list-kernels", NULL, astra_list_kernels, "FILE.cu [nvcc flags] [--json] [--key-text]",
	  "annotated kernels: location, pragma, dependencies, key" },
	{ "--explain", NULL, astra_rules_explain_command, "FILE.cu [nvcc flags] [--cc XX]",
	  "which rules apply to each annotated kernel, and why the others do not" },
};

const struct astra_command *astra_command_find(int argc, char **argv)
{
	size_t i;
	if (argc < 2)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		const struct astra_command *c = &commands[i];
		if (!strcmp(argv[1], c->lng) || (c->shrt && !strcmp(argv[1], c->shrt)))
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
	(void)argc;
	(void)argv;
	astra_command_usage(stdout);
	return 0;
}
