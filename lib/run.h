/*
 * run.h - starting other programs: nvcc, test programs, compute-sanitizer.
 *
 * Programs are started from argv arrays (fork + execv), never through a
 * shell: kernel text may come from an LLM and is hostile input.  A child
 * runs in its own process group so that a time limit can kill everything it
 * started (a hung test program, nvcc's own children), unless it is the
 * user's compile in the foreground (opts.foreground).
 */
#ifndef ASTRA_RUN_H
#define ASTRA_RUN_H

#include <sys/types.h>

#include "lib/buf.h"

struct astra_run_opts {
	const char *cwd;          /* NULL: inherit */
	char *const *env_add;     /* NULL-terminated "NAME=value" to add, or NULL */
	char *const *env_remove;  /* NULL-terminated names to remove, or NULL */
	struct astra_buf *out;    /* capture stdout here (appending), or NULL: inherit */
	struct astra_buf *err;    /* capture stderr here, or NULL: inherit */
	int quiet;                /* no capture buffer: send the stream to /dev/null */
	size_t max_capture;       /* per stream; 0 = 64 MiB; the rest is drained, dropped */
	double timeout;           /* seconds; 0 = none */
	int foreground;           /* stay in our process group, so that ^C reaches the child too */
	/*
	 * Called in the child after fork (after cwd and the environment are
	 * set), just before exec: the verifier's sandbox (verify/sandbox.h).
	 * Only async-signal-safe calls there: no allocation, no stdio.
	 */
	void (*child_setup)(void *data);
	void *child_data;
	volatile pid_t *pid_out;  /* the child's pid while it runs (for a signal handler), else 0; or NULL */
	/* Results. */
	int timed_out;            /* the child was killed at the time limit */
	int signal;               /* the signal that ended the child, or 0 */
	double seconds;           /* wall time */
};

/*
 * Run argv[0] (a path, or a name looked up in PATH) and wait for it.
 * Returns its exit status (0..255), 128 + signal when killed, or -1 when it
 * could not be started (logged).
 */
int astra_run(char *const *argv, struct astra_run_opts *opts);

/*
 * Replace this process by argv[0] (execv; PATH search when it has no
 * slash).  Returns only on failure, with errno set.
 */
int astra_exec(char *const *argv);

/* Locate name in PATH; returns a malloc'd path or NULL. */
char *astra_which(const char *name);

/* Full path of this executable (from /proc/self/exe), malloc'd, or NULL. */
char *astra_self_path(void);
/* Full path of the parent process's executable (/proc/PPID/exe), malloc'd, or NULL. */
char *astra_parent_path(void);

/*
 * Environment variable with a default: NULL and "" both mean unset.
 */
const char *astra_getenv(const char *name);

#endif
