// Element-wise and gathers: a thread per element with a guarded block or
// an early return, a grid-stride loop; an embedding row gathered by a
// flat thread per element or by a block per token.
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(n=10000) buffers(y[n], x[n]) outputs(y) scalars(a=2.0f)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void axpy__ref(float *y, const float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

#pragma astra optimize
#pragma astra shapes(n=10000) buffers(y[n], x[n]) outputs(y) scalars(a=2.0f)
#pragma astra launch(grid=264, block=256)
__global__ void axpy__grid(float *y, const float *x, float a, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		float t = a * x[i];
		y[i] = t + y[i];
	}
}

#pragma astra optimize
#pragma astra shapes(n=10000) buffers(y[n], x[n]) outputs(y) scalars(a=2.0f)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void axpy__return(float *y, const float *x, float a, int n)
{
	size_t i = (size_t)blockDim.x * blockIdx.x + threadIdx.x;
	if (i >= n)
		return;
	y[i] += a * x[i];
}

#pragma astra optimize
#pragma astra shapes(tokens=37, cols=100) buffers(out[tokens*cols], table[50*cols], ids[tokens]) outputs(out) range(ids: 0 .. 49)
#pragma astra launch(grid=(tokens * cols + 255) / 256, block=256)
__global__ void emb__ref(float *out, const float *table, const int *ids, int tokens, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= tokens * cols)
		return;
	int t = i / cols;
	out[i] = table[ids[t] * cols + i % cols];
}

#pragma astra optimize
#pragma astra shapes(tokens=37, cols=100) buffers(out[tokens*cols], table[50*cols], ids[tokens]) outputs(out) range(ids: 0 .. 49)
#pragma astra launch(grid=tokens, block=128)
__global__ void emb__block(float *out, const float *table, const int *ids, int tokens, int cols)
{
	const float *src = table + (size_t)ids[blockIdx.x] * cols;
	float *dst = out + (size_t)blockIdx.x * cols;
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		dst[j] = src[j];
}
