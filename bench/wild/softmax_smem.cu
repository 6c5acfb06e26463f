/*
 * Style: a block per row that stages the row in dynamic shared memory
 * (`extern __shared__`, cols * 4 bytes: 64 KB for 16384 columns, past
 * the 48 KB default), the shared-memory size a launch expression, and
 * the maximum written with `max()` on floats.
 * Computes: the softmax of each row of an fp32 [rows, cols] matrix,
 * reading each row from global memory once.
 * Flags: none
 * Expect: warp-reduce vectorize fastmath
 */
#include <cuda_runtime.h>
#include <float.h>

#pragma astra optimize noalias
#pragma astra shapes(rows=4096, cols=16384) shapes(rows=512, cols=4096) shapes(rows=7, cols=1003) shapes(rows=1, cols=1)
#pragma astra buffers(out[rows*cols], x[rows*cols]) outputs(out)
#pragma astra launch(grid=rows, block=256, shmem=cols * sizeof(float))
#pragma astra range(x: -10 .. 10) tolerance(rtol=1e-4, atol=1e-6) flops(4*rows*cols)
__global__ void softmax_smem(float *out, const float *x, int rows, int cols)
{
	extern __shared__ float row_buf[];
	__shared__ float red[256];
	const float *xr = x + (size_t)blockIdx.x * cols;
	float m = -FLT_MAX;
	for (int j = threadIdx.x; j < cols; j += blockDim.x) {
		float v = xr[j];
		row_buf[j] = v;
		m = max(m, v);
	}
	red[threadIdx.x] = m;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] = max(red[threadIdx.x], red[threadIdx.x + s]);
		__syncthreads();
	}
	m = red[0];
	__syncthreads();
	float sum = 0.0f;
	for (int j = threadIdx.x; j < cols; j += blockDim.x) {
		float e = expf(row_buf[j] - m);
		row_buf[j] = e;
		sum += e;
	}
	red[threadIdx.x] = sum;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	sum = red[0];
	float *o = out + (size_t)blockIdx.x * cols;
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		o[j] = row_buf[j] / sum;
}
