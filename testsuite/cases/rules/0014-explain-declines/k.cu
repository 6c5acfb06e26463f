/* Kernels each rule must leave alone, and why (astra-cc --explain). */
#include <cuda_fp16.h>

/* A running sum along the row: the iterations depend on each other, so no
 * rule may spread the loop over threads; double math is not fast-math'd. */
#pragma astra shapes(rows=64, cols=256)
#pragma astra buffers(out[rows * cols], x[rows * cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
__global__ void prefix(double *out, const double *x, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	double acc = 0.0;
	for (int j = 0; j < cols; j++) {
		acc += x[(size_t)row * cols + j] / 3.0;
		out[(size_t)row * cols + j] = acc;
	}
}

/* A barrier inside the loop, a tree that assumes 128 threads launched with
 * 256, a block size that is not a literal: vectorize, warp-reduce and
 * launch-bounds must decline. */
#pragma astra shapes(n=4096, nt=256)
#pragma astra buffers(out[n], x[n])
#pragma astra outputs(out)
#pragma astra launch(grid=1, block=nt)
__global__ void barrier_loop(float *out, const float *x, int n, int nt)
{
	__shared__ float buf[256];
	float s = 0.0f;
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		buf[threadIdx.x] = x[i];
		__syncthreads();
		s += buf[(threadIdx.x + 1) % blockDim.x];
		__syncthreads();
	}
	buf[threadIdx.x] = s;
	__syncthreads();
	for (int k = 64; k > 0; k >>= 1) {
		if (threadIdx.x < k)
			buf[threadIdx.x] += buf[threadIdx.x + k];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[0] = buf[0];
}

/* A 2-D kernel: the rules that reshape 1-D launches decline; flatten applies. */
#pragma astra shapes(rows=64, cols=64)
#pragma astra buffers(out[rows * cols], x[rows * cols])
#pragma astra outputs(out)
#pragma astra launch(grid=dim3(cols / 16, rows / 16), block=dim3(16, 16))
__global__ void copy2d(__half *out, const __half *x, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < rows && c < cols)
		out[r * cols + c] = x[r * cols + c];
}
