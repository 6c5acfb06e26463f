// k.cu - a first-version kernel for the LLM client's tests.
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(n=1000) shapes(n=1<<20) shapes(n=1)
#pragma astra buffers(y[n], x[n])
#pragma astra outputs(y)
#pragma astra scalars(a=1.5f)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void scale(float *y, const float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i];
}

void run_scale(float *y, const float *x, float a, int n, cudaStream_t s)
{
	scale<<<(n + 255) / 256, 256, 0, s>>>(y, x, a, n);
}
