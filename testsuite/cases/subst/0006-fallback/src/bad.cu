#include "util.cuh"

#pragma astra optimize
#pragma astra shapes(n=1000) buffers(x[n]) outputs(x)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = twice(x[i]);
}

void run(float *x, int n)
{
	scale<<<(n + 255) / 256, 256>>>(x, undeclared_thing);
}
