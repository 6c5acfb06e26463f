/*
 * bench-extract.c - how long extraction and the key take for one TU.
 *
 * Runs astra_extract_tu() and astra_key_compute() for every annotated
 * kernel N times in one process and prints the median and the minimum in
 * milliseconds, split into the two steps, and the CPU time of the whole
 * (wall time suffers first on a busy machine).  The process start (loading
 * libclang) is not included; bench/bench-extract.sh measures that
 * separately.  Usage: bench-extract FILE.cu [N] [nvcc flags]
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/run.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "front/key.h"
#include "front/extract.h"

/* CPU seconds of the whole process (libclang parses in a thread of its own). */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct astra_vec args = ASTRA_VEC_INIT;
	struct astra_cmdline cl;
	struct astra_search_path sp;
	int n = argc > 2 ? atoi(argv[2]) : 20, i, j;
	double *ext, *key, *tot, *cpu;
	size_t kernels = 0, launches = 0, deps = 0;

	if (argc < 2 || n < 1) {
		fprintf(stderr, "usage: bench-extract FILE.cu [N] [nvcc flags]\n");
		return 2;
	}
	astra_vec_push(&args, "nvcc");
	astra_vec_push(&args, "-c");
	astra_vec_push(&args, argv[1]);
	for (i = 3; i < argc; i++)
		astra_vec_push(&args, argv[i]);
	astra_cmdline_parse(&cl, (int)args.nr, args.v);
	ext = xcalloc((size_t)n, sizeof(double));
	key = xcalloc((size_t)n, sizeof(double));
	tot = xcalloc((size_t)n, sizeof(double));
	cpu = xcalloc((size_t)n, sizeof(double));
	/* The key's search path, as the driver has it (the host compiler's answer remembered). */
	memset(&sp, 0, sizeof(sp));
	astra_search_path_add_toolchain(&sp, &cl, astra_getenv("NVCC") ? astra_getenv("NVCC") : "nvcc",
					astra_getenv("ASTRA_CC_DIR"));
	for (i = 0; i < n; i++) {
		struct astra_tu tu;
		double c0 = cpu_now(), t0 = astra_now(), t1, t2;
		memset(&tu, 0, sizeof(tu));
		tu.search = &sp;
		if (astra_extract_tu(&tu, argv[1], &cl) < 0) {
			fprintf(stderr, "bench-extract: extraction failed\n");
			return 1;
		}
		t1 = astra_now();
		for (j = 0; j < (int)tu.nr_kernels; j++) {
			struct astra_key k;
			astra_key_compute(&tu, &tu.kernels[j], &cl, "sm_90", "nvcc version text", &k, NULL);
			deps += tu.kernels[j].nr_deps;
		}
		t2 = astra_now();
		ext[i] = (t1 - t0) * 1e3;
		key[i] = (t2 - t1) * 1e3;
		tot[i] = (t2 - t0) * 1e3;
		cpu[i] = (cpu_now() - c0) * 1e3;
		kernels = tu.nr_kernels;
		launches = tu.nr_launches;
		astra_tu_release(&tu);
	}
	qsort(ext, (size_t)n, sizeof(double), cmp);
	qsort(key, (size_t)n, sizeof(double), cmp);
	qsort(tot, (size_t)n, sizeof(double), cmp);
	qsort(cpu, (size_t)n, sizeof(double), cmp);
	printf("%s: %zu kernels, %zu launch sites, %zu deps; %d runs\n", argv[1], kernels, launches,
	       deps / (size_t)n, n);
	printf("extract   median %6.2f ms  min %6.2f ms\n", ext[n / 2], ext[0]);
	printf("key       median %6.2f ms  min %6.2f ms\n", key[n / 2], key[0]);
	printf("total     median %6.2f ms  min %6.2f ms  (wall)\n", tot[n / 2], tot[0]);
	printf("total CPU median %6.2f ms  min %6.2f ms  (all threads)\n", cpu[n / 2], cpu[0]);
	free(ext);
	free(key);
	free(tot);
	free(cpu);
	astra_cmdline_release(&cl);
	astra_vec_clear(&args);
	return 0;
}
