#include "inc/scale.cuh"
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = SCALE * x[i];
}
