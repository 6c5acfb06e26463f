#include "common.cuh"

#define BLOCK 256
#define UNUSED_LIMIT 10

__device__ float helper(float v) { return v * SCALE; }

__device__ float other_helper(float v) { return v + 1; }

#pragma astra shapes(n=4096) buffers(y[n], x[n]) outputs(y)
#pragma astra launch(grid=(n + BLOCK - 1) / BLOCK, block=BLOCK)
__global__ void target(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x; // the index
	if (i < n)
		y[i] = helper(x[i]);
}

#pragma astra shapes(n=4096) buffers(y[n]) outputs(y) launch(grid=n / 256, block=256)
__global__ void unrelated(float *y, int n)
{
	y[threadIdx.x] = other_helper(n);
}

void host_code(float *y, const float *x, int n)
{
	target<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(y, x, n);
}
