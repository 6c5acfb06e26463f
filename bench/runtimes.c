/*
 * runtimes.c - time two commands against each other, interleaved.
 *
 * Usage: runtimes N -- CMD_A ... -- CMD_B ...
 * Runs A and B alternately N times each (after one warm-up of each), with
 * their output discarded, and prints JSON: the median, the 10th and 90th
 * percentile of each, in milliseconds, and the median difference B - A.
 * Interleaving keeps slow drifts of the machine out of the comparison.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double run(char **argv)
{
	double t0 = now_ms();
	int status;
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
		fprintf(stderr, "runtimes: %s failed\n", argv[0]);
		exit(1);
	}
	return now_ms() - t0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
	return v[(int)(p * (n - 1) + 0.5)];
}

int main(int argc, char **argv)
{
	int n, i, split = 0;
	char **a, **b;
	double *ta, *tb, *d;
	if (argc < 5 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: runtimes N -- CMD_A... -- CMD_B...\n");
		return 2;
	}
	n = atoi(argv[1]);
	for (i = 3; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			split = i;
	if (!split || n < 1)
		return 2;
	argv[split] = NULL;
	a = argv + 3;
	b = argv + split + 1;
	ta = calloc(n, sizeof(double));
	tb = calloc(n, sizeof(double));
	d = calloc(n, sizeof(double));
	run(a);
	run(b);
	for (i = 0; i < n; i++) {
		ta[i] = run(a);
		tb[i] = run(b);
		d[i] = tb[i] - ta[i];
	}
	qsort(ta, n, sizeof(double), cmp);
	qsort(tb, n, sizeof(double), cmp);
	qsort(d, n, sizeof(double), cmp);
	printf("{\"runs\": %d, \"a_median_ms\": %.4f, \"a_p10_ms\": %.4f, \"a_p90_ms\": %.4f, "
	       "\"b_median_ms\": %.4f, \"b_p10_ms\": %.4f, \"b_p90_ms\": %.4f, "
	       "\"median_diff_ms\": %.4f, \"ratio\": %.4f}\n",
	       n, pct(ta, n, .5), pct(ta, n, .1), pct(ta, n, .9), pct(tb, n, .5), pct(tb, n, .1),
	       pct(tb, n, .9), pct(d, n, .5), pct(tb, n, .5) / pct(ta, n, .5));
	return 0;
}
