/*
 * warmup.h - `astra-cc --warmup`: optimize annotated kernels offline,
 * before a release build, so that the build itself only substitutes.
 *
 * Work comes from files named on the command line (with their nvcc flags
 * after `--`), from a compile_commands.json (-p DIR), or from the queue of
 * kernels that builds in `use` mode missed (no arguments).  Each kernel
 * that has no verdict for this GPU goes through the loop (agents/loop.h)
 * under its per-key lock, and the verdict is stored in the cache.  Without
 * a GPU it does what it can: it finds the kernels, shows which rules apply,
 * compiles the candidates, and says that verification needs a GPU.
 *
 * Compiles run in parallel (-j); runs on the GPU are serialized through a
 * lock file so that one test program's timing never shares the GPU.
 */
#ifndef ASTRA_WARMUP_H
#define ASTRA_WARMUP_H

#include "lib/vec.h"

/* What to warm up, and how (the command, astra-cc/cmd-warmup.c, fills it). */
struct astra_warmup_request {
	const char *nvcc;          /* the real nvcc */
	struct astra_vec files;    /* .cu files, compiled with flags; empty: db or the queue */
	struct astra_vec flags;    /* nvcc flags for files */
	const char *db;            /* a compile_commands.json or the directory holding it, or NULL */
	int jobs;                  /* compiles at a time (test programs take turns on the GPU) */
	int no_run;                /* generate and compile, do not verify */
	int progress;              /* 1 --progress, 0 --no-progress, -1 neither (agents/progress.h) */
	int max_rounds;            /* 0: the `max_rounds` setting */
	const char *json_out;      /* write the table as JSON here, or NULL */
};

/*
 * Warm up: print the table on stdout, write the JSON.  Returns 0, or 1
 * when a worker failed or a file could not be read.
 */
int astra_warmup_run(const struct astra_warmup_request *rq);

#endif
