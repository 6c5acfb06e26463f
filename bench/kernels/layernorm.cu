/*
 * layernorm - LayerNorm of each row with weight and bias:
 * out = (x - mean) / sqrt(var + eps) * w + b, mean and (biased) variance
 * over the row, computed in two passes for accuracy.
 *
 * First version: a block of 256 threads per row, scalar loads, each of the
 * two sums reduced through a shared-memory tree; the row is read three
 * times.
 */
#include <cuda_bf16.h>

#pragma astra optimize
#pragma astra shapes(rows=2048, cols=12288) shapes(rows=256, cols=4096)
#pragma astra shapes(rows=7, cols=5120) shapes(rows=1, cols=14336) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols], b[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=rows, block=256)
#pragma astra types(T=float) types(T=__nv_bfloat16)
#pragma astra scalars(eps=1e-5f)
#pragma astra range(x: -4 .. 4)
#pragma astra noalias
#pragma astra flops(8*rows*cols)
template <typename T>
__global__ void layernorm(T *out, const T *x, const T *w, const T *b, float eps,
			  int rows, int cols)
{
	__shared__ float red[256];
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *outr = out + (size_t)blockIdx.x * cols;
	int tid = threadIdx.x;

	float sum = 0.0f;
	for (int i = tid; i < cols; i += blockDim.x)
		sum += (float)xr[i];
	red[tid] = sum;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (tid < s)
			red[tid] += red[tid + s];
		__syncthreads();
	}
	float mean = red[0] / cols;
	__syncthreads(); /* everyone has read red[0] before it is reused */

	float sq = 0.0f;
	for (int i = tid; i < cols; i += blockDim.x) {
		float d = (float)xr[i] - mean;
		sq += d * d;
	}
	red[tid] = sq;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (tid < s)
			red[tid] += red[tid + s];
		__syncthreads();
	}
	float rstd = 1.0f / sqrtf(red[0] / cols + eps);

	for (int i = tid; i < cols; i += blockDim.x)
		outr[i] = (T)(((float)xr[i] - mean) * rstd * (float)w[i] + (float)b[i]);
}
