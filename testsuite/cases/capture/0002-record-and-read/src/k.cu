/* Two kernels annotated with `#pragma astra optimize` alone: their test comes from a capture. */
#include <cuda_runtime.h>

#pragma astra optimize
__global__ void axpy(float *y, const float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

#pragma astra optimize
template <typename T>
__global__ void gather_rows(T *out, const int *ids, const T *table, int tokens, int dim)
{
	int t = blockIdx.x;
	if (t >= tokens)
		return;
	for (int i = threadIdx.x; i < dim; i += blockDim.x)
		out[(size_t)t * dim + i] = table[(size_t)ids[t] * dim + i];
}

void run_axpy(float *y, const float *x, float a, int n, cudaStream_t s)
{
	axpy<<<(n + 255) / 256, 256, 0, s>>>(y, x, a, n);
}

void run_gather(float *out, const int *ids, const float *table, int tokens, int dim, cudaStream_t s)
{
	gather_rows<<<tokens, 128, 0, s>>>(out, ids, table, tokens, dim);
}
