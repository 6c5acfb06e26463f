#include "vecops.cuh"

__global__ void scale(float *x, float s, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		x[i] *= s;
}

void launch_scale(float *x, float s, int n)
{
	scale<<<128, 256>>>(x, s, n);
}
