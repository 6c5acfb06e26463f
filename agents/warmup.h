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
 * Compiles run in parallel (-j); runs on a GPU are serialized through
 * that GPU's lock file so that one test program's timing never shares the
 * GPU.  With several GPUs, each worker is pinned to one of them
 * (agents/gpus.h): N GPUs run N test programs at once.
 *
 * For a cluster (agents/plan.h): in plan mode the workers only compute
 * each kernel's key and look it up, and the rows become a plan of work
 * items; a plan's item comes back here as one explicit item.
 */
#ifndef ASTRA_WARMUP_H
#define ASTRA_WARMUP_H

#include "lib/json.h"
#include "lib/vec.h"
#include "cache/queue.h"

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
	int measure_all;           /* --measure-all: time a kernel with nothing to try too (its time in the table) */
	const char *json_out;      /* write the table as JSON here, or NULL */
	const char *gpus;          /* --gpus LIST (agents/gpus.h), or NULL: every GPU */
	int cc;                    /* architecture of the keys (sm_XX); 0: the GPU's, else 90 */
	int plan;                  /* plan mode: rows "planned" / "cached" with key, cc, cwd, argv */
	const struct astra_warmup_item *items; /* explicit work (a plan's item): the only jobs */
	size_t nr_items;
	/* Plan mode: called with the rows in order before the table is printed. */
	int (*plan_rows)(struct astra_json **rows, size_t n, void *data);
	void *plan_data;
};

/*
 * Warm up: print the table on stdout, write the JSON.  Returns 0, or 1
 * when a worker failed or a file could not be read.
 */
int astra_warmup_run(const struct astra_warmup_request *rq);

/*
 * Print the table of rows (as the JSON's "kernels") on stdout;
 * gpu_present: whether the rows come from a machine with a GPU (a note
 * otherwise).  For `--warmup --report`, which gathers rows from many
 * machines.
 */
void astra_warmup_print_table(struct astra_json **rows, size_t n, int gpu_present);

#endif
