/*
 * gpus.h - which GPU runs what: warmup's one worker per GPU.
 *
 * `astra-cc --warmup` uses every GPU it sees (verify/gpu.h's list), or
 * those that `--gpus LIST` names.  Each worker process (one translation
 * unit at a time) is pinned to one GPU for its whole life: its test
 * programs see only that GPU (CUDA_VISIBLE_DEVICES=<UUID>, so CUDA's
 * device 0 is that card) and take turns on it through that GPU's own lock
 * (ASTRA_CC_GPU_LOCK=<cache>/gpu-<UUID>.lock), so two test programs never
 * share a GPU and a kernel's timings all come from one card.  New workers
 * go to the GPU with the fewest workers.
 *
 * Pure functions over arrays, so that the planning is tested without a
 * GPU (testsuite/unit/test-gpus.c).
 */
#ifndef ASTRA_GPUS_H
#define ASTRA_GPUS_H

#include <stddef.h>

#include "verify/gpu.h"

/*
 * Choose from all[0..n-1] the GPUs that list names: "all" or NULL (every
 * one), or comma-separated nvidia-smi indices and UUIDs (or UUID
 * prefixes: "GPU-8932f937"), in that order.  Fills out (n entries at
 * most) and returns how many; -1 with *why (malloc'd) when an item names
 * no GPU, names one twice, or the list is empty.
 */
int astra_gpus_select(const struct astra_gpu *all, size_t n, const char *list, struct astra_gpu *out, char **why);

/* The GPU for the next worker: the fewest busy[i], the first on a tie. */
size_t astra_gpus_pick(const int *busy, size_t n);

/*
 * The environment of a worker pinned to g: "CUDA_VISIBLE_DEVICES=..."
 * (its UUID, else its index; nothing when neither is known) and
 * "ASTRA_CC_GPU_LOCK=<dir>/<astra_gpu_lock_name>".  env must have room
 * for 2 strings; returns how many it filled (malloc'd).
 */
size_t astra_gpus_env(const struct astra_gpu *g, const char *dir, char **env);

/* In the worker: set that environment and make the probe answer g. */
void astra_gpus_enter(const struct astra_gpu *g, const char *dir);

/* "0,1" or "GPU 0 (NVIDIA H100 80GB HBM3)": the GPUs of a run, for messages (malloc'd). */
char *astra_gpus_describe(const struct astra_gpu *v, size_t n);

#endif
