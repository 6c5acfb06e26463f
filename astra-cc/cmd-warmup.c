/*
 * cmd-warmup.c - `astra-cc --warmup [-j N] [--rounds N] [--no-run]
 * [--json FILE] [--[no-]progress] [-p BUILD_DIR | FILE.cu... [-- NVCC FLAGS]]`:
 * the options; the work is agents/warmup.c's.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/warmup.h"
#include "astra-cc/cmd-warmup.h"
#include "lib/locate.h"
#include "lib/util.h"

static void usage(void)
{
	fprintf(stderr, "usage: astra-cc --warmup [-j N] [--rounds N] [--no-run] [--json FILE] [--[no-]progress]\n"
			"                         [-p BUILD_DIR | FILE.cu... [-- NVCC FLAGS]]\n");
}

int astra_cmd_warmup(int argc, char **argv)
{
	struct astra_warmup_request rq;
	const char *why;
	char *nvcc;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int a, ret;

	memset(&rq, 0, sizeof(rq));
	astra_vec_init(&rq.files);
	astra_vec_init(&rq.flags);
	rq.jobs = ncpu > 4 ? 4 : (ncpu > 0 ? (int)ncpu : 1);
	rq.progress = -1;
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
		else if (!strcmp(argv[a], "--no-progress"))
			rq.progress = 0;
		else if (!strcmp(argv[a], "--")) {
			for (a++; a < argc; a++)
				astra_vec_push(&rq.flags, argv[a]);
		} else if (argv[a][0] == '-') {
			usage();
			astra_vec_clear(&rq.files);
			astra_vec_clear(&rq.flags);
			return 2;
		} else
			astra_vec_push(&rq.files, argv[a]);
	}
	nvcc = astra_locate_nvcc(0, &why);
	if (!nvcc) {
		fprintf(stderr, "%s: cannot find the real nvcc: %s\n", astra_progname, why);
		astra_vec_clear(&rq.files);
		astra_vec_clear(&rq.flags);
		return 127;
	}
	rq.nvcc = nvcc;
	ret = astra_warmup_run(&rq);
	free(nvcc);
	astra_vec_clear(&rq.files);
	astra_vec_clear(&rq.flags);
	return ret;
}
