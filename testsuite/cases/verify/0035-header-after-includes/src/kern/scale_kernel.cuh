/* A header of kernels whose host code uses check_last() without including
 * its declaration: the file that includes it has included helper.h first
 * (cuda-samples' fastWalshTransform_kernel.cuh and getLastCudaError). */
#ifndef SCALE_KERNEL_CUH
#define SCALE_KERNEL_CUH
#include "scale_defs.h"

__global__ void fill(float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 0.0f;
}

void fill_gpu(float *y, int n)
{
	fill<<<(n + 255) / 256, 256>>>(y, n);
	check_last("fill");
}

#pragma astra shapes(n=4096, a=1.5f) shapes(n=1000, a=0.25f)
#pragma astra buffers(x[n], y[n])
#pragma astra outputs(y)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void scale_sq(const float *x, float *y, int n, float a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = SCALE_FACTOR * a * x[i] * x[i];
}

#endif
