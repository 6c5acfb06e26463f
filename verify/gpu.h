/*
 * gpu.h - the one GPU probe: is there a GPU here, and which?
 *
 * Every part that needs to know (the verifier before it runs a test
 * program, warmup before it plans, the compile path's `optimize` policy)
 * asks here, so that they agree.  The answer is for GPU 0 as the CUDA
 * runtime numbers them (CUDA_VISIBLE_DEVICES applies).
 */
#ifndef ASTRA_GPU_H
#define ASTRA_GPU_H

struct astra_gpu {
	int present;
	int cc;              /* compute capability, 90 */
	char name[128];      /* "NVIDIA H100 80GB HBM3", or "" when unknown */
	char driver[64];     /* "580.159.04", or "" */
	char why[256];       /* when absent: why, for messages */
};

/*
 * Fill g; returns 1 when a GPU is present, else 0 (g->why says why).
 * ASTRA_CC_NO_GPU set: none.  Else the compute capability comes from
 * nvcc's own device query (__nvcc_device_query beside nvcc, what
 * -arch=native uses) when nvcc is given and it exists there, and name and
 * driver (and the compute capability otherwise) from nvidia-smi.  The
 * first answer for a given nvcc is kept for the process.
 */
int astra_gpu_probe(const char *nvcc, struct astra_gpu *g);

#endif
