// RMS norm written five ways; each lifts to the same computation as the
// thread-per-row kernel rms__ref (kernel names: GROUP__WAY).
#include <cuda_runtime.h>

__device__ __forceinline__ float warp_sum(float v)
{
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_xor_sync(0xffffffff, v, off);
	return v;
}

#pragma astra optimize
#pragma astra shapes(rows=37, cols=1000) buffers(out[rows*cols], x[rows*cols], w[cols]) outputs(out) scalars(eps=1e-6f)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
__global__ void rms__ref(float *out, const float *x, const float *w, float eps, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float ss = 0.0f;
	for (int c = 0; c < cols; c++)
		ss += x[r * cols + c] * x[r * cols + c];
	float inv = rsqrtf(ss / cols + eps);
	for (int c = 0; c < cols; c++)
		out[r * cols + c] = x[r * cols + c] * inv * w[c];
}

// A block per row, a block-stride loop, a shared-memory tree.
#pragma astra optimize
#pragma astra shapes(rows=37, cols=1000) buffers(out[rows*cols], x[rows*cols], w[cols]) outputs(out) scalars(eps=1e-6f)
#pragma astra launch(grid=rows, block=256)
__global__ void rms__tree(float *out, const float *x, const float *w, float eps, int rows, int cols)
{
	__shared__ float red[256];
	const float *xr = x + (size_t)blockIdx.x * cols;
	float ss = 0.0f;
	for (int j = threadIdx.x; j < cols; j += blockDim.x) {
		float v = xr[j];
		ss += v * v;
	}
	red[threadIdx.x] = ss;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	float inv = rsqrtf(red[0] / cols + eps);
	float *o = out + (size_t)blockIdx.x * cols;
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		o[j] = xr[j] * inv * w[j];
}

// A block per row, warp shuffles, a shared array of per-warp partials, a
// shared broadcast of the total.
#pragma astra optimize
#pragma astra shapes(rows=37, cols=1000) buffers(out[rows*cols], x[rows*cols], w[cols]) outputs(out) scalars(eps=1e-6f)
#pragma astra launch(grid=rows, block=256)
__global__ void rms__warps(float *out, const float *x, const float *w, float eps, int rows, int cols)
{
	__shared__ float partial[32];
	__shared__ float total;
	int row = blockIdx.x;
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	float ss = 0.0f;
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		ss += x[row * cols + j] * x[row * cols + j];
	ss = warp_sum(ss);
	if (lane == 0)
		partial[warp] = ss;
	__syncthreads();
	if (warp == 0) {
		ss = threadIdx.x < blockDim.x / 32 ? partial[lane] : 0.0f;
		ss = warp_sum(ss);
		if (lane == 0)
			total = ss;
	}
	__syncthreads();
	float inv = rsqrtf(total / cols + eps);
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		out[row * cols + j] = x[row * cols + j] * inv * w[j];
}

// A warp per row, __shfl_down_sync, lane 0's sum broadcast by __shfl_sync.
#pragma astra optimize
#pragma astra shapes(rows=37, cols=1000) buffers(out[rows*cols], x[rows*cols], w[cols]) outputs(out) scalars(eps=1e-6f)
#pragma astra launch(grid=(rows + 7) / 8, block=256)
__global__ void rms__warp(float *out, const float *x, const float *w, float eps, int rows, int cols)
{
	int gid = blockIdx.x * blockDim.x + threadIdx.x;
	int row = gid / 32;
	int lane = threadIdx.x & 31;
	if (row >= rows)
		return;
	float ss = 0.0f;
	for (int j = lane; j < cols; j += 32)
		ss += x[row * cols + j] * x[row * cols + j];
	for (int off = 16; off > 0; off >>= 1)
		ss = ss + __shfl_down_sync(0xffffffff, ss, off);
	ss = __shfl_sync(0xffffffff, ss, 0);
	float inv = rsqrtf(ss / cols + eps);
	for (int j = lane; j < cols; j += 32)
		out[row * cols + j] = x[row * cols + j] * inv * w[j];
}

// 2-D blocks: threadIdx.y is the row, threadIdx.x its lane.
#pragma astra optimize
#pragma astra shapes(rows=37, cols=1000) buffers(out[rows*cols], x[rows*cols], w[cols]) outputs(out) scalars(eps=1e-6f)
#pragma astra launch(grid=(rows + 3) / 4, block=dim3(32, 4))
__global__ void rms__2d(float *out, const float *x, const float *w, float eps, int rows, int cols)
{
	int row = blockIdx.x * blockDim.y + threadIdx.y;
	if (row < rows) {
		float ss = 0.0f;
		for (int j = threadIdx.x; j < cols; j += blockDim.x)
			ss += x[row * cols + j] * x[row * cols + j];
		ss = warp_sum(ss);
		float inv = rsqrtf(ss / cols + eps);
		for (int j = threadIdx.x; j < cols; j += blockDim.x)
			out[row * cols + j] = x[row * cols + j] * inv * w[j];
	}
}
