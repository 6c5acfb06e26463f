// Reductions to one number written four ways (issue 27): each lifts to
// the same `out[0] += sum_i(...)`, and lower-reduce generates it again
// (grid-stride float4 accumulation, block all-reduce, one atomicAdd per
// block).  Sizes: odd, a tail of 1-3 elements past the float4s, one.
#include <cuda_runtime.h>


// 1. A thread per element, one atomicAdd each.
#pragma astra optimize
#pragma astra shapes(n=100003) shapes(n=4099) shapes(n=7) shapes(n=1)
#pragma astra buffers(out[1], x[n], y[n]) outputs(out) range(x, y: -1 .. 1)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void dot__atomic(float *out, const float *x, const float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(out, x[i] * y[i]);
}

// 2. Grid-stride accumulation, __shfl_down_sync, per-warp partials in
// shared memory, one atomicAdd per block.
#pragma astra optimize
#pragma astra shapes(n=100003) shapes(n=4099) shapes(n=7) shapes(n=1)
#pragma astra buffers(out[1], x[n], y[n]) outputs(out) range(x, y: -1 .. 1)
#pragma astra launch(grid=132, block=256)
__global__ void dot__shfl(float *out, const float *x, const float *y, int n)
{
	__shared__ float partial[8];
	float acc = 0.0f;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		acc += x[i] * y[i];
	for (int off = 16; off > 0; off /= 2)
		acc += __shfl_down_sync(0xffffffff, acc, off);
	if (threadIdx.x % 32 == 0)
		partial[threadIdx.x / 32] = acc;
	__syncthreads();
	if (threadIdx.x < 32) {
		float v = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0f;
		for (int off = 16; off > 0; off /= 2)
			v += __shfl_down_sync(0xffffffff, v, off);
		if (threadIdx.x == 0)
			atomicAdd(out, v);
	}
}

// 3. A block's shared-memory tree over one element per thread.
#pragma astra optimize
#pragma astra shapes(n=100003) shapes(n=4099) shapes(n=7) shapes(n=1)
#pragma astra buffers(out[1], x[n], y[n]) outputs(out) range(x, y: -1 .. 1)
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void dot__tree(float *out, const float *x, const float *y, int n)
{
	__shared__ float red[128];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	red[threadIdx.x] = i < n ? x[i] * y[i] : 0.0f;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(&out[0], red[0]);
}

// 4. A block-reduce helper of __shfl_xor_sync and per-warp partials
// (the issue's `block_reduce_sum<NUM_THREADS>`), a sum of one buffer.
template <int NUM_THREADS>
__device__ float block_reduce_sum(float v)
{
	__shared__ float warp_sums[NUM_THREADS / 32];
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	for (int mask = 16; mask > 0; mask >>= 1)
		v += __shfl_xor_sync(0xffffffff, v, mask);
	if (lane == 0)
		warp_sums[warp] = v;
	__syncthreads();
	v = lane < NUM_THREADS / 32 ? warp_sums[lane] : 0.0f;
	for (int mask = 16; mask > 0; mask >>= 1)
		v += __shfl_xor_sync(0xffffffff, v, mask);
	return v;
}

#pragma astra optimize
#pragma astra shapes(n=100003) shapes(n=4099) shapes(n=7) shapes(n=1)
#pragma astra buffers(out[1], x[n]) outputs(out) range(x: -1 .. 1)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void sum__helper(float *out, const float *x, int n)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = block_reduce_sum<256>(i < n ? x[i] : 0.0f);
	if (threadIdx.x == 0)
		atomicAdd(out, v);
}

// The same sum, a thread per element (its twin).
#pragma astra optimize
#pragma astra shapes(n=100003) shapes(n=4099) shapes(n=7) shapes(n=1)
#pragma astra buffers(out[1], x[n]) outputs(out) range(x: -1 .. 1)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void sum__atomic(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	atomicAdd(out, x[i]);
}

// Not a reduction to one number: one sum per block (a two-pass kernel's
// first pass).  lower-reduce declines it.
#pragma astra optimize
#pragma astra shapes(n=4099) buffers(out[(n + 255) / 256], x[n]) outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void partial__tree(float *out, const float *x, int n)
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
		out[blockIdx.x] = red[0];
}
