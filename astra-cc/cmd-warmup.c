/*
 * cmd-warmup.c - `astra-cc --warmup [-j N] [--rounds N] [--no-run] [--measure-all]
 * [--json FILE] [--[no-]progress] [--gpus LIST] [-p BUILD_DIR | FILE.cu...
 * [-- NVCC FLAGS]]`, and the cluster forms `--plan FILE [--arch sm_XX]
 * [--gres SPEC|none] ...`, `--item N --plan FILE`, `--report --plan FILE [--json FILE]`:
 * the options; the work is agents/warmup.c's and agents/plan.c's.
 */
#include "autoconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/plan.h"
#include "agents/warmup.h"
#include "astra-cc/cmd-util.h"
#include "astra-cc/cmd-warmup.h"
#include "lib/arch.h"
#include "lib/config.h"
#include "lib/locate.h"
#include "lib/util.h"

/* A count for -j or --rounds: a whole number from 1 to max, or -1. */
static int count_arg(const char *s, int max)
{
	char *end;
	long n;
	errno = 0;
	n = strtol(s, &end, 10);
	return *s && !*end && !errno && n >= 1 && n <= max ? (int)n : -1;
}

/* A whole number >= 0, or -1. */
static long number(const char *s)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(s, &end, 10);
	return *s && !*end && !errno && v >= 0 ? v : -1;
}

int astra_cmd_warmup(int argc, char **argv)
{
	struct astra_warmup_request rq;
	const char *why, *plan = NULL, *gres = NULL;
	char *nvcc;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long item = -1;
	int a, ret = 2, report = 0;
	size_t i;

	memset(&rq, 0, sizeof(rq));
	astra_vec_init(&rq.files);
	astra_vec_init(&rq.flags);
	/* The jobs setting (ASTRA_CC_JOBS), else the CPUs, at most 4; -j wins. */
	rq.jobs = ncpu > 4 ? 4 : (ncpu > 0 ? (int)ncpu : 1);
	if (strcmp(astra_config_origin(ASTRA_CFG_JOBS), "default") && astra_config_int(ASTRA_CFG_JOBS) > 0)
		rq.jobs = (int)astra_config_int(ASTRA_CFG_JOBS);
	rq.progress = -1;
	for (a = 1; a < argc; a++) {
		const char *v = NULL;
		if ((!strcmp(argv[a], "-j") || !strcmp(argv[a], "--rounds") || !strcmp(argv[a], "-p") ||
		     !strcmp(argv[a], "--json") || !strcmp(argv[a], "--gpus") || !strcmp(argv[a], "--plan") ||
		     !strcmp(argv[a], "--item") || !strcmp(argv[a], "--arch") || !strcmp(argv[a], "--gres")) &&
		    a + 1 >= argc) {
			astra_cmd_usage_error(argv[0], "option '%s' requires an argument", argv[a]);
			goto out;
		}
		if (!strcmp(argv[a], "-j") || (!strncmp(argv[a], "-j", 2) && argv[a][2])) {
			v = argv[a][2] ? argv[a] + 2 : argv[++a];
			if ((rq.jobs = count_arg(v, 1024)) < 0) {
				astra_cmd_usage_error(argv[0], "invalid number of jobs '%s'", v);
				goto out;
			}
		} else if (!strcmp(argv[a], "--rounds")) {
			v = argv[++a];
			if ((rq.max_rounds = count_arg(v, 1000)) < 0) {
				astra_cmd_usage_error(argv[0], "invalid number of rounds '%s'", v);
				goto out;
			}
		} else if (!strcmp(argv[a], "-p"))
			rq.db = argv[++a];
		else if (!strcmp(argv[a], "--json"))
			rq.json_out = argv[++a];
		else if (!strcmp(argv[a], "--no-run"))
			rq.no_run = 1;
		else if (!strcmp(argv[a], "--measure-all"))
			rq.measure_all = 1;
		else if (!strcmp(argv[a], "--progress"))
			rq.progress = 1;
		else if (!strcmp(argv[a], "--no-progress"))
			rq.progress = 0;
		else if (!strcmp(argv[a], "--gpus"))
			rq.gpus = argv[++a];
		else if (!strcmp(argv[a], "--plan"))
			plan = argv[++a];
		else if (!strcmp(argv[a], "--report"))
			report = 1;
		else if (!strcmp(argv[a], "--item")) {
			if ((item = number(argv[++a])) < 0) {
				astra_cmd_usage_error(argv[0], "--item %s: not an item number", argv[a]);
				goto out;
			}
		} else if (!strcmp(argv[a], "--gres")) {
			gres = argv[++a];
			if (!astra_plan_gres_ok(gres)) {
				astra_cmd_usage_error(argv[0], "--gres '%s': not a Slurm generic resource (gpu:1, gpu:a100:1) or none",
						      gres);
				goto out;
			}
		} else if (!strcmp(argv[a], "--arch")) {
			if ((rq.cc = astra_arch_cc(argv[++a])) <= 0) {
				astra_cmd_usage_error(argv[0], "--arch %s: not an architecture (sm_90)", argv[a]);
				goto out;
			}
		} else if (!strcmp(argv[a], "--")) {
			for (a++; a < argc; a++)
				astra_vec_push(&rq.flags, argv[a]);
		} else if (argv[a][0] == '-') {
			astra_cmd_usage_error(argv[0], "unrecognized option '%s'", argv[a]);
			goto out;
		} else
			astra_vec_push(&rq.files, argv[a]);
	}
	if ((item >= 0 || report) && !plan) {
		astra_cmd_usage_error(argv[0], "--item and --report need --plan FILE");
		goto out;
	}
	if ((item >= 0 || report) && (rq.files.nr || rq.db)) {
		astra_cmd_usage_error(argv[0], "--item and --report take their work from the plan, not from files or -p");
		goto out;
	}
	if (gres && (!plan || item >= 0 || report)) {
		astra_cmd_usage_error(argv[0], "--gres is for the job script that --plan FILE writes");
		goto out;
	}
	if (item >= 0 && report) {
		astra_cmd_usage_error(argv[0], "--item and --report go separately");
		goto out;
	}
	if (report) {
		ret = astra_plan_report(plan, rq.json_out);
		goto out;
	}
	/* Files that are not there are the user's mistake, said plainly (not libclang's). */
	for (i = 0; i < rq.files.nr; i++)
		if (access(rq.files.v[i], R_OK) < 0) {
			fprintf(stderr, "%s: %s: %s\n", astra_progname, rq.files.v[i], strerror(errno));
			ret = 1;
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
		ret = astra_plan_make(&rq, plan, gres);
	else
		ret = astra_warmup_run(&rq);
	free(nvcc);
out:
	astra_vec_clear(&rq.files);
	astra_vec_clear(&rq.flags);
	return ret;
}
