// Softmax over rows (a max, then a sum of exponentials): a thread per row,
// a block per row with shared-memory trees (fmaxf, then +), a warp per row
// with shuffle loops (max, then sum).  All lift to the same computation.
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(rows=37, cols=1000) buffers(out[rows*cols], x[rows*cols]) outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
__global__ void sm__ref(float *out, const float *x, int rows, int cols)
{
	int r = threadIdx.x + blockDim.x * blockIdx.x;
	if (r < rows) {
		float m = -INFINITY;
		for (int c = 0; c < cols; ++c)
			m = fmaxf(m, x[r * cols + c]);
		float s = 0.0f;
		for (int c = 0; c < cols; ++c)
			s += expf(x[r * cols + c] - m);
		for (int c = 0; c < cols; ++c)
			out[r * cols + c] = expf(x[r * cols + c] - m) / s;
	}
}

#pragma astra optimize
#pragma astra shapes(rows=37, cols=1000) buffers(out[rows*cols], x[rows*cols]) outputs(out)
#pragma astra launch(grid=rows, block=128)
__global__ void sm__tree(float *out, const float *x, int rows, int cols)
{
	__shared__ float sh[128];
	int row = blockIdx.x, tid = threadIdx.x;
	float m = -INFINITY;
	for (int j = tid; j < cols; j += blockDim.x)
		if (x[row * cols + j] > m)
			m = x[row * cols + j];
	sh[tid] = m;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			sh[tid] = fmaxf(sh[tid], sh[tid + s]);
		__syncthreads();
	}
	float rowmax = sh[0];
	__syncthreads();
	float sum = 0.0f;
	for (int j = tid; j < cols; j += blockDim.x)
		sum += expf(x[row * cols + j] - rowmax);
	sh[tid] = sum;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			sh[tid] += sh[tid + s];
		__syncthreads();
	}
	float total = sh[0];
	for (int j = tid; j < cols; j += blockDim.x)
		out[row * cols + j] = expf(x[row * cols + j] - rowmax) / total;
}

#pragma astra optimize
#pragma astra shapes(rows=37, cols=1000) buffers(out[rows*cols], x[rows*cols]) outputs(out)
#pragma astra launch(grid=(rows + 3) / 4, block=128)
__global__ void sm__warp(float *out, const float *x, int rows, int cols)
{
	int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32;
	if (warp >= rows)
		return;
	const float *xr = x + warp * cols;
	float m = -INFINITY;
	for (int j = lane; j < cols; j += 32)
		m = fmaxf(m, xr[j]);
	for (int o = 16; o > 0; o /= 2)
		m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
	float s = 0.0f;
	for (int j = lane; j < cols; j += 32)
		s += expf(xr[j] - m);
	for (int o = 16; o > 0; o /= 2)
		s += __shfl_xor_sync(0xffffffff, s, o);
	for (int j = lane; j < cols; j += 32)
		out[warp * cols + j] = expf(xr[j] - m) / s;
}
