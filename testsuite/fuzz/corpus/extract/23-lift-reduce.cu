// Reductions to one number: one atomicAdd per element, or a grid-stride
// accumulation, a warp/block reduction and one atomicAdd per block.
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(n=100000) buffers(out[1], x[n], y[n]) outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void dot__ref(float *out, const float *x, const float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(out, x[i] * y[i]);
}

// Grid-stride accumulation, __shfl_down_sync, per-warp partials, one
// atomicAdd per block.
#pragma astra optimize
#pragma astra shapes(n=100000) buffers(out[1], x[n], y[n]) outputs(out)
#pragma astra launch(grid=264, block=256)
__global__ void dot__grid(float *out, const float *x, const float *y, int n)
{
	__shared__ float warp_part[8];
	float acc = 0.0f;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		acc += x[i] * y[i];
	for (int off = 16; off > 0; off /= 2)
		acc += __shfl_down_sync(0xffffffff, acc, off);
	if (threadIdx.x % 32 == 0)
		warp_part[threadIdx.x / 32] = acc;
	__syncthreads();
	if (threadIdx.x < 32) {
		float v = threadIdx.x < blockDim.x / 32 ? warp_part[threadIdx.x] : 0.0f;
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffff, v, off);
		if (threadIdx.x == 0)
			atomicAdd(out, v);
	}
}

#pragma astra optimize
#pragma astra shapes(n=100000) buffers(out[1], x[n]) outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void sum__ref(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	atomicAdd(&out[0], x[i]);
}

// A block's shared-memory tree, then one atomicAdd.
#pragma astra optimize
#pragma astra shapes(n=100000) buffers(out[1], x[n]) outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void sum__tree(float *out, const float *x, int n)
{
	__shared__ float red[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	red[threadIdx.x] = i < n ? x[i] : 0.0f;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(out, red[0]);
}
