/*
 * cmd-warmup.c - `astra-cc --warmup [-j N] [--rounds N] [--no-run]
 * [--json FILE] [--progress] [--gpus LIST] [-p BUILD_DIR | FILE.cu...
 * [-- NVCC FLAGS]]`, and the cluster forms `--plan FILE [--arch sm_XX]
 * ...`, `--item N --plan FILE`, `--report --plan FILE [--json FILE]`:
 * the options; the work is agents/warmup.c's and agents/plan.c's.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/plan.h"
#include "agents/warmup.h"
#include "astra-cc/cmd-warmup.h"
#include "lib/arch.h"
#include "lib/locate.h"
#include "lib/util.h"

static void usage(void)
{
	fprintf(stderr, "usage: astra-cc --warmup [-j N] [--rounds N] [--no-run] [--json FILE] [--progress]\n"
			"                         [--gpus LIST] [-p BUILD_DIR | FILE.cu... [-- NVCC FLAGS]]\n"
			"       astra-cc --warmup --plan FILE [--arch sm_XX] [-p BUILD_DIR | FILE.cu... [-- NVCC FLAGS]]\n"
			"       astra-cc --warmup --item N --plan FILE [--rounds N] [--progress]\n"
			"       astra-cc --warmup --report --plan FILE [--json FILE]\n");
}

/* A whole number >= 0, or -1. */
static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	return *s && !*end && v >= 0 ? v : -1;
}

int astra_cmd_warmup(int argc, char **argv)
{
	struct astra_warmup_request rq;
	const char *why, *plan = NULL;
	char *nvcc;
	long item = -1;
	int a, ret, report = 0;

	memset(&rq, 0, sizeof(rq));
	astra_vec_init(&rq.files);
	astra_vec_init(&rq.flags);
	rq.progress = isatty(2);
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-j") && a + 1 < argc)
			rq.jobs = atoi(argv[++a]);
		else if (!strncmp(argv[a], "-j", 2) && argv[a][2])
			rq.jobs = atoi(argv[a] + 2);
		else if (!strcmp(argv[a], "-p") && a + 1 < argc)
			rq.db = argv[++a];
		else if (!strcmp(argv[a], "--json") && a + 1 < argc)
			rq.json_out = argv[++a];
		else if (!strcmp(argv[a], "--rounds") && a + 1 < argc)
			rq.max_rounds = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--no-run"))
			rq.no_run = 1;
		else if (!strcmp(argv[a], "--progress"))
			rq.progress = 1;
		else if (!strcmp(argv[a], "--gpus") && a + 1 < argc)
			rq.gpus = argv[++a];
		else if (!strcmp(argv[a], "--plan") && a + 1 < argc)
			plan = argv[++a];
		else if (!strcmp(argv[a], "--report"))
			report = 1;
		else if (!strcmp(argv[a], "--item") && a + 1 < argc) {
			if ((item = number(argv[++a])) < 0) {
				fprintf(stderr, "%s: --item %s: not an item number\n", astra_progname, argv[a]);
				goto bad;
			}
		} else if (!strcmp(argv[a], "--arch") && a + 1 < argc) {
			if ((rq.cc = astra_arch_cc(argv[++a])) <= 0) {
				fprintf(stderr, "%s: --arch %s: not an architecture (sm_90)\n", astra_progname, argv[a]);
				goto bad;
			}
		} else if (!strcmp(argv[a], "--")) {
			for (a++; a < argc; a++)
				astra_vec_push(&rq.flags, argv[a]);
		} else if (argv[a][0] == '-') {
			goto usage;
		} else
			astra_vec_push(&rq.files, argv[a]);
	}
	if ((item >= 0 || report) && !plan) {
		fprintf(stderr, "%s: --item and --report need --plan FILE\n", astra_progname);
		goto bad;
	}
	if ((item >= 0 || report) && (rq.files.nr || rq.db)) {
		fprintf(stderr, "%s: --item and --report take their work from the plan, not from files or -p\n",
			astra_progname);
		goto bad;
	}
	if (item >= 0 && report)
		goto usage;
	if (report) {
		ret = astra_plan_report(plan, rq.json_out);
		goto out;
	}
	nvcc = astra_locate_nvcc(0, &why);
	if (!nvcc) {
		fprintf(stderr, "%s: cannot find the real nvcc: %s\n", astra_progname, why);
		ret = 127;
		goto out;
	}
	rq.nvcc = nvcc;
	if (item >= 0)
		ret = astra_plan_item(&rq, plan, item);
	else if (plan)
		ret = astra_plan_make(&rq, plan);
	else
		ret = astra_warmup_run(&rq);
	free(nvcc);
out:
	astra_vec_clear(&rq.files);
	astra_vec_clear(&rq.flags);
	return ret;
usage:
	usage();
bad:
	astra_vec_clear(&rq.files);
	astra_vec_clear(&rq.flags);
	return 2;
}
