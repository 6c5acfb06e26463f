#include <cstdio>
#include <common.cuh>
#include "util.cuh"

#pragma astra optimize
#pragma astra shapes(n=1000) shapes(n=7) buffers(x[n]) outputs(x)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = twice(x[i]);
}

__global__ void other(float *x) { x[0] = 1.0f; }

static int calls;
static float *counted(float *p) { calls++; return p; }

void run(float *x, int n, cudaStream_t s)
{
	int unused_var;
	scale<<<(n + 255) / 256, 256, 0, s>>>(counted(x), n--);
	other<<<1, 1>>>(x);
}

int main()
{
	float *x = nullptr;
	cudaMalloc(&x, 64 * sizeof(float));
	run(x, 10, 0);
	printf("%s %s %s line=%d calls=%d %s\n", __FILE__, util_file, common_file, __LINE__, calls,
	       cudaGetErrorName(cudaGetLastError()));
	return 0;
}
