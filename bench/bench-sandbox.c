/*
 * bench-sandbox.c - what the test programs' sandbox costs per program
 * (verify/sandbox.h): N runs of a host program through astra_run, as the
 * verifier runs a test program, without and with the sandbox, interleaved.
 *
 * Usage: bench/bench-sandbox [N] [PROGRAM ARG...]   (default: 200 runs of /bin/true)
 * BENCH_SANDBOX_NO_NETNS=1 leaves the namespaces out (limits and directory only).
 * Prints the median wall time of a run each way and the difference.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/run.h"
#include "lib/util.h"
#include "lib/workspace.h"
#include "verify/sandbox.h"

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200, i, k;
	char *const def[] = { (char *)"/bin/true", NULL };
	char *const *prog = argc > 2 ? argv + 2 : def;
	double *t[2];
	char *dir = astra_workspace_make("astra-bench-sandbox-"), *run;
	const char *why = NULL;

	if (!dir || n < 1)
		return 2;
	run = xasprintf("%s/run", dir);
	t[0] = xcalloc((size_t)n, sizeof(double));
	t[1] = xcalloc((size_t)n, sizeof(double));
	for (i = 0; i < n; i++) {
		for (k = 0; k < 2; k++) {
			struct astra_run_opts ro;
			struct astra_sandbox sb;
			struct astra_buf out = ASTRA_BUF_INIT, err = ASTRA_BUF_INIT;
			char *env_add[2] = { NULL, NULL };
			double t0 = astra_now();
			memset(&ro, 0, sizeof(ro));
			/* Output captured, as the verifier runs a test program. */
			ro.out = &out;
			ro.err = &err;
			ro.timeout = 60;
			if (k) {
				/* Everything the verifier does per run, preparation included. */
				struct astra_sandbox_work w = { 60, 0, 1 };
				struct astra_sandbox_limits lim;
				astra_sandbox_limits(&w, &lim);
				if (astra_sandbox_prepare(&sb, run, &lim, NULL) < 0)
					return 1;
				/* BENCH_SANDBOX_NO_NETNS=1: limits and directory only, to see what the namespace costs. */
				if (getenv("BENCH_SANDBOX_NO_NETNS"))
					sb.netns = 0;
				ro.cwd = sb.dir;
				env_add[0] = sb.tmpdir_env;
				ro.env_add = env_add;
				ro.child_setup = astra_sandbox_enter;
				ro.child_data = &sb;
			}
			astra_run(prog, &ro);
			if (k)
				astra_sandbox_release(&sb);
			astra_buf_release(&out);
			astra_buf_release(&err);
			t[k][i] = astra_now() - t0;
		}
	}
	qsort(t[0], (size_t)n, sizeof(double), by_value);
	qsort(t[1], (size_t)n, sizeof(double), by_value);
	printf("program: %s, %d runs each\n", prog[0], n);
	printf("network namespace: %s\n", astra_sandbox_netns_available(&why) ? "yes" : why);
	printf("plain:     median %.3f ms\n", t[0][n / 2] * 1e3);
	printf("sandboxed: median %.3f ms\n", t[1][n / 2] * 1e3);
	printf("cost:      %.3f ms per program\n", (t[1][n / 2] - t[0][n / 2]) * 1e3);
	astra_workspace_remove(dir);
	free(run);
	free(dir);
	free(t[0]);
	free(t[1]);
	return 0;
}
