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

/* The command: argv[0] is "--warmup". */
int astra_warmup_cmd(int argc, char **argv);

/* What a GPU this machine has, from nvidia-smi (first GPU). */
struct astra_gpu {
	int present;
	int cc;             /* 90 */
	char name[128];
	char driver[64];
};

/* Fill g; returns 1 when a GPU is present, else 0. */
int astra_gpu_detect(struct astra_gpu *g);

#endif
