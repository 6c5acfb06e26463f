/*
 * sandbox.h - the child that runs a generated test program.
 *
 * A test program contains candidate code from the rules or from a model:
 * code nobody has reviewed, run with the user's rights.  Beyond the
 * watchdog and the time limit the verifier always had, the child that runs
 * it (the test program itself, or compute-sanitizer with the program
 * under it) gets:
 *
 *   - resource limits: CPU time (the run's wall-clock limit times the
 *     threads the program runs at once, plus 10 s: astra_sandbox_limits), private
 *     writable memory (RLIMIT_DATA: half the machine's memory, at least
 *     4 GiB; RLIMIT_AS is not set, because the CUDA driver reserves
 *     address space for the whole unified address space, host and device
 *     memory together, which no useful limit leaves room for), file size
 *     (64 MiB), no core files, and the number of processes (256 in its own
 *     user namespace; with none, the user's current count plus 256);
 *   - a private, empty working directory (and TMPDIR) inside the
 *     verification's workspace, emptied after each run;
 *   - where the kernel offers Landlock (Linux 5.13 and later), writes
 *     confined to the private directory, /dev (the GPU's device files,
 *     /dev/null, /dev/shm), the CUDA driver's cache (CUDA_CACHE_PATH or
 *     ~/.nv, when it exists) and a directory the caller names
 *     (compute-sanitizer's log): creating, writing, truncating, removing,
 *     renaming and linking files anywhere else fails with EACCES; reading
 *     and executing are not restricted.  Where Landlock is missing, the
 *     program writes wherever the user may and the notes say so;
 *   - where the kernel allows unprivileged user namespaces, a network
 *     namespace of its own: unshare(CLONE_NEWUSER|CLONE_NEWNET), the user's
 *     uid and gid mapped to themselves, and only a loopback interface
 *     (compute-sanitizer talks to its target over loopback).  Where that
 *     fails, the program runs with the network and the verification's
 *     notes say so.
 *
 * What is not contained, and the cost, is in doc/verify.md ("The sandbox").
 * The setting `sandbox` (default true) turns it off.
 */
#ifndef ASTRA_SANDBOX_H
#define ASTRA_SANDBOX_H

#include <sys/resource.h>
#include <sys/types.h>

#define ASTRA_SANDBOX_FSIZE (64LL << 20)
#define ASTRA_SANDBOX_NPROC 256

/*
 * The limits of a run follow the work it is asked to do.  The wall clock:
 * the user's --timeout when given; else the original kernel's measured
 * time for the launches the run plans, times ASTRA_SANDBOX_SLACK (the
 * candidates may be slower, the host checks every output), never less
 * than ASTRA_SANDBOX_MIN_WALL (before the original has been timed, in
 * this verification or an earlier round of the loop, that is the limit).  CPU time counts every thread: the test program fills and
 * compares on up to ASTRA_SANDBOX_THREADS host threads (harness-rt's
 * nthreads(), the processors online up to 16) beside the one that launches
 * and waits (spinning in the CUDA driver) and compute-sanitizer's own, so
 * RLIMIT_CPU is the wall-clock limit times those threads, plus 10 s.  (It
 * was the wall-clock limit plus 10 s: a softmax over 50,257 columns at
 * 8,192 rows was killed by SIGXCPU 154 s into a 600 s run.)
 */
#define ASTRA_SANDBOX_MIN_WALL 600.0
#define ASTRA_SANDBOX_SLACK 10.0
#define ASTRA_SANDBOX_THREADS 16

struct astra_sandbox_work {
	double timeout;    /* the wall-clock limit the user gave; 0: none */
	double planned;    /* seconds of the run's launches at the original's measured speed; 0: not measured */
	long cpus;         /* processors online (sysconf); <= 0: unknown, 1 */
};

struct astra_sandbox_limits {
	double wall;       /* seconds of wall-clock time */
	double cpu;        /* seconds of CPU time (RLIMIT_CPU's soft limit) */
	unsigned threads;  /* the threads the CPU time was allowed for */
};

/* The limits of a run doing work w (pure: no system calls). */
void astra_sandbox_limits(const struct astra_sandbox_work *w, struct astra_sandbox_limits *l);

struct astra_sandbox {
	/* Everything the child needs, computed before the fork. */
	struct rlimit cpu, data, fsize, core, nproc;
	char *dir;                 /* the private working directory (made by prepare) */
	char *tmpdir_env;          /* "TMPDIR=<dir>" */
	char uid_map[64], gid_map[64];
	int netns;                 /* make a user and network namespace (it worked in the probe) */
	int ruleset;               /* the Landlock ruleset the child enters, or -1 */
};

/* The child's exit status when Landlock's ruleset could not be entered (it never runs unconfined). */
#define ASTRA_SANDBOX_LANDLOCK_FAILED 125

/*
 * Prepare a sandbox for one run with limits l (astra_sandbox_limits),
 * with its private directory `dir` (created 0700 if missing, emptied if
 * not), and the directory also_writable (or NULL) writable too.  Hooks for
 * the test suite (doc/testing.md): ASTRA_CC_TEST_CPU_LIMIT (seconds)
 * replaces the CPU-time limit; ASTRA_CC_TEST_SANDBOX_WRITABLE names one
 * more directory a program may write in (where stand-in programs record
 * what they saw).  Returns 0, or -1 (logged)
 * when the directory cannot be made.
 */
int astra_sandbox_prepare(struct astra_sandbox *sb, const char *dir, const struct astra_sandbox_limits *l,
			  const char *also_writable);

/*
 * Why a run that exited with status rc (astra_run's: 128 + signal when
 * killed) stopped, when a limit of sb's stopped it: a malloc'd sentence
 * naming the limit and its value ("killed by the CPU-time limit
 * (RLIMIT_CPU 250 s)"), or NULL.  err: the program's stderr (an
 * allocation refused by the memory limit ends in std::bad_alloc), or NULL.
 */
char *astra_sandbox_stop_reason(const struct astra_sandbox *sb, int rc, const char *err);

/*
 * The child's side (an astra_run_opts.child_setup hook; data is the
 * struct astra_sandbox): namespaces, limits.  Async-signal-safe.
 */
void astra_sandbox_enter(void *data);

/* Empty the private directory after a run; free what prepare allocated. */
void astra_sandbox_release(struct astra_sandbox *sb);

/*
 * Can this process make a user and network namespace (probed once, in a
 * child)?  1 yes; 0 no, with the reason in *why (static).
 */
int astra_sandbox_netns_available(const char **why);

/*
 * Does the kernel offer Landlock (probed once)?  Its ABI version (1 or
 * more); 0 no, with the reason in *why (static).
 */
int astra_sandbox_landlock_available(const char **why);

#endif
