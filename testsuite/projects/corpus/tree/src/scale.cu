// scale.cu: a stand-in for a project's sample.   scale_kernel(...) is mentioned here.
#include <cstdio>
#include "common.h"

__global__ void scale_kernel(float *y, const float *x, float a, int n);   /* a prototype */

__global__ void scale_kernel(float *y, const float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;	// trailing tab and spaces kept:   
	if (i < n)
		y[i] = a * x[i];
}

// the project's faster version: two elements per thread
__global__ void scale_kernel_x2(float *y, const float *x, float a, int n)
{
	int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
	if (i < n)
		y[i] = a * x[i];
	if (i + 1 < n)
		y[i + 1] = a * x[i + 1];
}

template <int B>
__global__ void block_sum(float *out, const float *x, int n)
{
	__shared__ float s[B];
	int i = blockIdx.x * B + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0.0f;
	__syncthreads();
	for (int k = B / 2; k > 0; k >>= 1) {
		if (threadIdx.x < k)
			s[threadIdx.x] += s[threadIdx.x + k];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = s[0];
}

int main(void)
{
	printf("%s\n", "scale_kernel<<<>>>");
	return 0;
}
// windows line ends
// kept
