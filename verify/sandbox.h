/*
 * sandbox.h - the child that runs a generated test program.
 *
 * A test program contains candidate code from the rules or from a model:
 * code nobody has reviewed, run with the user's rights.  Beyond the
 * watchdog and the time limit the verifier always had, the child that runs
 * it (the test program itself, or compute-sanitizer with the program
 * under it) gets:
 *
 *   - resource limits: CPU time (the run's time limit plus 10 s), private
 *     writable memory (RLIMIT_DATA: half the machine's memory, at least
 *     4 GiB; RLIMIT_AS is not set, because the CUDA driver reserves
 *     address space for the whole unified address space, host and device
 *     memory together, which no useful limit leaves room for), file size
 *     (64 MiB), no core files, and the number of processes (256 in its own
 *     user namespace; with none, the user's current count plus 256);
 *   - a private, empty working directory (and TMPDIR) inside the
 *     verification's workspace, emptied after each run;
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

struct astra_sandbox {
	/* Everything the child needs, computed before the fork. */
	struct rlimit cpu, data, fsize, core, nproc;
	char *dir;                 /* the private working directory (made by prepare) */
	char *tmpdir_env;          /* "TMPDIR=<dir>" */
	char uid_map[64], gid_map[64];
	int netns;                 /* make a user and network namespace (it worked in the probe) */
};

/*
 * Prepare a sandbox for one run of at most `timeout` seconds, with its
 * private directory `dir` (created 0700 if missing, emptied if not).
 * Returns 0, or -1 (logged) when the directory cannot be made.
 */
int astra_sandbox_prepare(struct astra_sandbox *sb, const char *dir, double timeout);

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

#endif
