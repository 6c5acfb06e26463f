/*
 * gpu.h - the one GPU probe: is there a GPU here, and which?
 *
 * Every part that needs to know (the verifier before it runs a test
 * program, warmup before it plans, the compile path's `optimize` policy)
 * asks here, so that they agree.  astra_gpu_probe answers for the GPU a
 * CUDA program would use (the first visible: CUDA_VISIBLE_DEVICES
 * applies); astra_gpu_list lists every visible GPU, for warmup's one
 * worker per GPU.
 */
#ifndef ASTRA_GPU_H
#define ASTRA_GPU_H

#include <stddef.h>

struct astra_gpu {
	int present;
	int cc;              /* compute capability, 90 */
	int index;           /* nvidia-smi's index (PCI order), -1 when unknown */
	char uuid[96];       /* "GPU-8932f937-...", or "" when unknown */
	char name[128];      /* "NVIDIA H100 80GB HBM3", or "" when unknown */
	char driver[64];     /* "580.159.04", or "" */
	char why[256];       /* when absent: why, for messages */
};

/*
 * Fill g; returns 1 when a GPU is present, else 0 (g->why says why).
 * ASTRA_CC_NO_GPU set: none.  Else the compute capability comes from
 * nvcc's own device query (__nvcc_device_query beside nvcc, what
 * -arch=native uses) when nvcc is given and it exists there, and name,
 * driver, index and UUID (and the compute capability otherwise) from
 * nvidia-smi, for the first GPU that CUDA_VISIBLE_DEVICES lets a program
 * see.  The first answer for a given nvcc is kept for the process.
 */
int astra_gpu_probe(const char *nvcc, struct astra_gpu *g);

/*
 * Every GPU a CUDA program here may use, in CUDA_VISIBLE_DEVICES order
 * (all of nvidia-smi's, in its order, when that is unset).  *out is
 * malloc'd (free it); *n may be 0, with why filled.  When the probe finds
 * a GPU that nvidia-smi cannot list, the list is that one GPU (index -1,
 * no UUID).  ASTRA_CC_NVIDIA_SMI names the nvidia-smi to run (tests).
 */
int astra_gpu_list(const char *nvcc, struct astra_gpu **out, size_t *n, char *why, size_t whylen);

/*
 * From now on, this process's probe answers g (a warmup worker pinned to
 * one GPU with CUDA_VISIBLE_DEVICES=<its UUID>).
 */
void astra_gpu_use(const struct astra_gpu *g);

/*
 * The lock file's name for runs on g, relative to the cache directory:
 * "gpu-<UUID>.lock" when its UUID is known (unique on a host and across a
 * cluster sharing a directory), else "gpu.lock".  Malloc'd.
 */
char *astra_gpu_lock_name(const struct astra_gpu *g);

#endif
