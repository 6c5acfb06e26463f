/*
 * Style: a block per row whose reductions live in a `__device__` helper
 * (a shared-memory tree with `#pragma unroll`, the block size a template
 * parameter), two-pass statistics, an integer template parameter next to
 * the element type.
 * Computes: LayerNorm of each row of [rows, cols] with weight and bias,
 * fp32 or fp16 storage, fp32 math.
 * Flags: none
 * Expect: warp-reduce vectorize half2
 */
#include <cuda_fp16.h>

template <int BLOCK>
__device__ float block_sum(float v, float *red)
{
	red[threadIdx.x] = v;
	__syncthreads();
#pragma unroll
	for (int s = BLOCK / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	float r = red[0];
	__syncthreads();
	return r;
}

#pragma astra optimize noalias
#pragma astra shapes(rows=8192, cols=4096) shapes(rows=512, cols=1024) shapes(rows=7, cols=1001) shapes(rows=1, cols=3)
#pragma astra buffers(out[rows*cols], x[rows*cols], gamma[cols], beta[cols]) outputs(out)
#pragma astra launch(grid=rows, block=BLOCK_THREADS)
#pragma astra types(T=float, BLOCK_THREADS=256) types(T=__half, BLOCK_THREADS=128)
#pragma astra scalars(eps=1e-5f) tolerance(rtol=5e-3, atol=5e-3) flops(8*rows*cols)
template <typename T, int BLOCK_THREADS>
__global__ void layernorm_block(T *out, const T *x, const T *gamma, const T *beta, float eps, int rows, int cols)
{
	__shared__ float red[BLOCK_THREADS];
	const T *xr = x + (size_t)blockIdx.x * cols;
	float sum = 0.0f;
	for (int j = threadIdx.x; j < cols; j += BLOCK_THREADS)
		sum += (float)xr[j];
	float mean = block_sum<BLOCK_THREADS>(sum, red) / cols;
	float sq = 0.0f;
	for (int j = threadIdx.x; j < cols; j += BLOCK_THREADS) {
		float d = (float)xr[j] - mean;
		sq += d * d;
	}
	float rstd = rsqrtf(block_sum<BLOCK_THREADS>(sq, red) / cols + eps);
	T *o = out + (size_t)blockIdx.x * cols;
	for (int j = threadIdx.x; j < cols; j += BLOCK_THREADS)
		o[j] = (T)(((float)xr[j] - mean) * rstd * (float)gamma[j] + (float)beta[j]);
}
