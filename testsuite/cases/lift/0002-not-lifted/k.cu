// Kernels the lifter does not lift (yet, or ever; the first now lifts): each gets a reason
// with its line, and the rules' candidates are what they were without
// lifting.
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(n=10000) buffers(out[n], x[n]) outputs(out) scalars(lo=-1.0f, hi=1.0f)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void clamp_branch(float *out, const float *x, float lo, float hi, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	// a branch on data around one assignment: lifts as a select (it did not before)
	if (v < lo)
		v = lo;
	if (v > hi)
		v = hi;
	out[i] = v;
}

#pragma astra optimize
#pragma astra shapes(n=10000) buffers(out[n], x[n]) outputs(out)
#pragma astra launch(grid=64, block=256)
__global__ void while_loop(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	while (i < n) {
		out[i] = 2.0f * x[i];
		i += blockDim.x * gridDim.x;
	}
}

#pragma astra optimize
#pragma astra shapes(n4=2500) buffers(out[4*n4], x[4*n4]) outputs(out)
#pragma astra launch(grid=(n4 + 255) / 256, block=256)
__global__ void vec4(float *out, const float *x, int n4)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4) {
		float4 v = reinterpret_cast<const float4 *>(x)[i];
		v.x *= 2.0f;
		reinterpret_cast<float4 *>(out)[i] = v;
	}
}

// A thread's maximum combined across the warp with +: not a reduction.
#pragma astra optimize
#pragma astra shapes(rows=37, cols=100) buffers(out[rows], x[rows*cols]) outputs(out)
#pragma astra launch(grid=(rows + 7) / 8, block=256)
__global__ void max_as_sum(float *out, const float *x, int rows, int cols)
{
	int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
	if (row >= rows)
		return;
	float m = -INFINITY;
	for (int j = lane; j < cols; j += 32)
		m = fmaxf(m, x[row * cols + j]);
	for (int o = 16; o > 0; o /= 2)
		m += __shfl_xor_sync(0xffffffff, m, o);
	if (lane == 0)
		out[row] = m;
}

// A shuffle loop over 16 lanes while a warp has the row.
#pragma astra optimize
#pragma astra shapes(rows=37, cols=100) buffers(out[rows], x[rows*cols]) outputs(out)
#pragma astra launch(grid=(rows + 7) / 8, block=256)
__global__ void half_warp(float *out, const float *x, int rows, int cols)
{
	int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
	if (row >= rows)
		return;
	float s = 0.0f;
	for (int j = lane; j < cols; j += 32)
		s += x[row * cols + j];
	for (int o = 8; o > 0; o /= 2)
		s += __shfl_xor_sync(0xffffffff, s, o);
	if (lane == 0)
		out[row] = s;
}

// An exclusive scan: the running sum is read before it is updated.
#pragma astra optimize
#pragma astra shapes(rows=37, cols=100) buffers(out[rows*cols], x[rows*cols]) outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
__global__ void exclusive_scan(float *out, const float *x, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float acc = 0.0f;
	for (int c = 0; c < cols; c++) {
		out[r * cols + c] = acc;
		acc += x[r * cols + c];
	}
}

// One element per thread, but the block is not the row length: the
// columns beyond the block are never read.
#pragma astra optimize
#pragma astra shapes(rows=37, cols=300) buffers(out[rows], x[rows*cols]) outputs(out)
#pragma astra launch(grid=rows, block=256)
__global__ void short_block(float *out, const float *x, int rows, int cols)
{
	__shared__ float red[256];
	red[threadIdx.x] = x[blockIdx.x * cols + threadIdx.x];
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = red[0];
}

// A loop nest per output element that reads the element it accumulates
// (a running value over k, not a sum).
#pragma astra optimize
#pragma astra shapes(n=40, m=20) buffers(a[n*m], c[n*n]) outputs(c)
#pragma astra launch(grid=dim3((n + 15) / 16, (n + 15) / 16), block=dim3(16, 16))
__global__ void nest_scan(float *c, const float *a, int n, int m)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < n && j < n)
		for (int k = 0; k < m; k++)
			c[i * n + j] = c[i * n + j] * a[i * m + k];
}

// A thread per row that stores to one place in its loop over the row:
// the last column's value is kept (not a sum, not modelled).
#pragma astra optimize
#pragma astra shapes(rows=37, cols=50) buffers(out[rows], x[rows*cols]) outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
__global__ void last_write(float *out, const float *x, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows)
		for (int c = 0; c < cols; c++)
			out[r] = 2.0f * x[r * cols + c];
}
