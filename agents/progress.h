/*
 * progress.h - what `astra-cc --warmup` shows while it works.
 *
 * Optimizing a kernel takes a minute or two, a suite of them much longer;
 * this says where each kernel is.  Three modes:
 *
 *   LIVE   standard output is a terminal: one line per kernel, rewritten in
 *          place (carriage return, cursor up, erase) at every step of the
 *          loop and every second for the clock: kernel, round, phase,
 *          candidates verified / proposed so far, best speedup so far,
 *          elapsed time.  A finished kernel's line stays, with its outcome;
 *          the lines still being rewritten are always the last ones.
 *   LINES  otherwise: one plain line per step on standard error, without
 *          control characters, so that a log reads well.
 *   OFF    --no-progress.
 *
 * The table that ends a warmup is printed on standard output after
 * astra_progress_end(), identical in every mode.
 *
 * Workers are processes (agents/warmup.c).  In LIVE mode the parent owns
 * the terminal: a worker's steps reach it through a pipe, and what the
 * worker prints on standard output (and on standard error, when that is a
 * terminal too) through two more, so that the parent can print it above
 * the lines it rewrites.
 *
 * Lifecycle: astra_progress_start() in the parent before forking;
 * astra_progress_child() first thing in each worker; the worker's loop
 * reports through astra_progress_loop() (an astra_loop_opts.progress
 * callback whose data is the struct astra_progress); the parent waits for
 * workers with astra_progress_wait() instead of wait(); then
 * astra_progress_end() frees everything.
 */
#ifndef ASTRA_PROGRESS_H
#define ASTRA_PROGRESS_H

#include <stddef.h>
#include <sys/types.h>

#include "agents/loop.h"

enum astra_progress_mode {
	ASTRA_PROGRESS_OFF,
	ASTRA_PROGRESS_LINES,
	ASTRA_PROGRESS_LIVE,
};

struct astra_progress;

/*
 * The mode for this process: requested is 0 (--no-progress), 1
 * (--progress) or -1 (neither).  LIVE when standard output is a terminal
 * that can move its cursor (TERM set and not "dumb"), unless 0; else LINES,
 * unless 0.
 */
enum astra_progress_mode astra_progress_choose(int requested);

/* The display for nr_jobs workers (parent, before the first fork). */
struct astra_progress *astra_progress_start(enum astra_progress_mode mode, size_t nr_jobs);

/*
 * Nothing will be verified (no GPU, --no-run): why, in a few words ("no
 * GPU").  The lines then say what happens instead (candidates generated
 * and compiled), never "verifying".  Parent, before the first fork.
 */
void astra_progress_not_verified(struct astra_progress *p, const char *why);

/* In worker number job (0-based), right after fork. */
void astra_progress_child(struct astra_progress *p, size_t job);

/* The loop's progress callback; data is the struct astra_progress. */
void astra_progress_loop(void *data, const struct astra_loop_progress *lp);

/*
 * Parent: wait for any worker as wait(2) does, keeping the display up to
 * date meanwhile.  Returns its pid, or -1 with errno (ECHILD: none left).
 */
pid_t astra_progress_wait(struct astra_progress *p, int *status);

/* Parent, after the last worker: print what is pending, end the display, free p. */
void astra_progress_end(struct astra_progress *p);

/*
 * One kernel's state as text, for the LINES mode and the live lines:
 * "[1/3] softmax: round 2, verifying 8 candidates: 16/24 verified, best
 * 1.84x, 1:02", and at the end "[1/3] softmax: done: 2.09x, confirmed;
 * 2 rounds, 24/24 candidates verified, 1:42".  Without a GPU (not_verified
 * set): "[1/3] softmax: compiling 24 candidates; not verified: no GPU, 12 s",
 * and "[1/3] softmax: done: 24 candidates generated and compiled; not
 * verified: no GPU, 40 s".
 */
struct astra_progress_line {
	size_t job, nr_jobs;
	char kernel[128];
	double t0, t_end;        /* astra_now() at the first step, at the outcome */
	int round;               /* 0-based */
	size_t verified, total;  /* candidates judged / proposed so far */
	double best;
	char phase[24];          /* the last step, or the verdict */
	int done;                /* the outcome is known (or the worker ended) */
	char not_verified[32];   /* "" or why nothing is verified: "compiling" for "verifying" */
};

/* Apply one step of the loop to l (l zeroed for a kernel's first step). */
void astra_progress_apply(struct astra_progress_line *l, const struct astra_loop_progress *lp, double now);
/* Append l's text (no newline) to b, its clock read at now. */
struct astra_buf;
void astra_progress_describe(const struct astra_progress_line *l, double now, struct astra_buf *b);

#endif
