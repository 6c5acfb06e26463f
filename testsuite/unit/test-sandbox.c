/*
 * Unit tests for verify/sandbox.c: the limits of a run follow the work it
 * is asked to do, and a run a limit stopped says which limit and its value.
 */
#include "autoconfig.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/sandbox.h"
#include "testsuite/unit/unit.h"

int main(void)
{
	struct astra_sandbox_work w;
	struct astra_sandbox_limits l;
	struct astra_sandbox sb;
	char *why;

	/* Nothing measured yet, no --timeout: the floor. */
	memset(&w, 0, sizeof(w));
	w.cpus = 64;
	astra_sandbox_limits(&w, &l);
	CHECK(l.wall == ASTRA_SANDBOX_MIN_WALL);
	/*
	 * Issue 28, item 4: a softmax over 50,257 columns at 8,192 rows ran
	 * 154 s on a 64-processor host, its 16 host threads filling and
	 * comparing, and SIGXCPU killed it (the limit was 600 s + 10 s of CPU
	 * time for all threads together).  CPU time is allowed for every
	 * thread the program runs for the whole wall-clock limit.
	 */
	CHECK_INT(l.threads, ASTRA_SANDBOX_THREADS + 2);
	CHECK(l.cpu >= l.wall * (ASTRA_SANDBOX_THREADS + 1));
	CHECK(l.cpu > 154.0 * 17);
	CHECK_INT((long long)l.cpu, (long long)(600 * 18 + 10));

	/* Fewer processors, fewer threads (harness-rt's nthreads()). */
	w.cpus = 2;
	astra_sandbox_limits(&w, &l);
	CHECK_INT(l.threads, 4);
	CHECK_INT((long long)l.cpu, 600 * 4 + 10);
	w.cpus = 0;
	astra_sandbox_limits(&w, &l);
	CHECK_INT(l.threads, 3);

	/* The original measured: 100 s of planned launches need more than the floor. */
	w.cpus = 2;
	w.planned = 100;
	astra_sandbox_limits(&w, &l);
	CHECK(l.wall == 100 * ASTRA_SANDBOX_SLACK);
	CHECK_INT((long long)l.cpu, (long long)(100 * ASTRA_SANDBOX_SLACK * 4 + 10));
	/* A fast kernel keeps the floor. */
	w.planned = 0.5;
	astra_sandbox_limits(&w, &l);
	CHECK(l.wall == ASTRA_SANDBOX_MIN_WALL);
	/* The user's --timeout is the wall-clock limit, whatever the work. */
	w.timeout = 60;
	w.planned = 100;
	astra_sandbox_limits(&w, &l);
	CHECK(l.wall == 60);
	CHECK_INT((long long)l.cpu, 60 * 4 + 10);

	/* Which limit stopped a run, with its value. */
	memset(&sb, 0, sizeof(sb));
	sb.cpu.rlim_cur = 250;
	sb.cpu.rlim_max = 260;
	sb.fsize.rlim_cur = sb.fsize.rlim_max = ASTRA_SANDBOX_FSIZE;
	sb.data.rlim_cur = sb.data.rlim_max = 4ULL << 30;
	why = astra_sandbox_stop_reason(&sb, 128 + SIGXCPU, NULL);
	CHECK_STR(why, "killed by the CPU-time limit (RLIMIT_CPU 250 s)");
	free(why);
	why = astra_sandbox_stop_reason(&sb, 128 + SIGXFSZ, NULL);
	CHECK_STR(why, "killed by the file-size limit (RLIMIT_FSIZE 64 MiB)");
	free(why);
	why = astra_sandbox_stop_reason(&sb, 128 + SIGABRT, "terminate called after throwing an instance of 'std::bad_alloc'\n");
	CHECK_STR(why, "stopped when an allocation failed: the memory limit (RLIMIT_DATA 4096 MiB)");
	free(why);
	why = astra_sandbox_stop_reason(&sb, 128 + SIGKILL, NULL);
	CHECK(why && strstr(why, "RLIMIT_CPU 260 s"));
	free(why);
	/* An exit of its own, or a crash: no limit to name. */
	CHECK(astra_sandbox_stop_reason(&sb, 3, NULL) == NULL);
	CHECK(astra_sandbox_stop_reason(&sb, 128 + SIGSEGV, "") == NULL);
	return unit_done();
}
