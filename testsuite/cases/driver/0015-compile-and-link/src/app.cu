#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "host.h"

void launch_rownorm(float *out, const float *in, int rows, int cols);

/* A helper whose parameter type comes from a header (extraction must see past it). */
static void fill(std::vector<float> &v)
{
	for (size_t i = 0; i < v.size(); i++)
		v[i] = (float)i;
}

#pragma astra optimize
__global__ void scale(float *out, const float *in, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a * in[i];
}

int main()
{
	const int n = 1 << 16, rows = 256, cols = 256;
	/* Every buffer in one pooled allocation, as trainers keep their activations. */
	char *pool = nullptr;
	size_t bytes = (size_t)(2 * n + rows * cols + rows) * sizeof(float);
	if (cudaMalloc(&pool, bytes) != cudaSuccess)
		printf("no device: %s\n", cudaGetErrorString(cudaGetLastError()));
	float *x = (float *)pool, *y = x + n, *m = y + n, *norms = m + rows * cols;
	std::vector<float> h(n);
	fill(h);
	cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(m, h.data(), rows * cols * sizeof(float), cudaMemcpyHostToDevice);
	scale<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
	launch_rownorm(norms, m, rows, cols);
	cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
	printf("%d wrong\n", host_check(h.data(), n));
	cudaFree(pool);
	return 0;
}
