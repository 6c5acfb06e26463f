/*
 * fused_add_rmsnorm - the residual add fused with RMSNorm, as SGLang and
 * vLLM run it between transformer layers: residual <- x + residual (in
 * place, rounded to T), then out = rmsnorm(residual) * w.  Both out and
 * the updated residual are results.
 *
 * First version: a block of 256 threads per row, scalar loads, the sum of
 * squares reduced through a shared-memory tree; the second pass reads the
 * updated residual back from global memory.
 */
#include <cuda_bf16.h>

#pragma astra optimize
#pragma astra shapes(rows=2048, cols=8192) shapes(rows=512, cols=4096)
#pragma astra shapes(rows=7, cols=5120) shapes(rows=1, cols=14336) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], residual[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out, residual)
#pragma astra launch(grid=rows, block=256)
#pragma astra types(T=float) types(T=__nv_bfloat16)
#pragma astra scalars(eps=1e-6f)
#pragma astra range(x: -2 .. 2) range(residual: -2 .. 2)
#pragma astra noalias
#pragma astra flops(5*rows*cols)
template <typename T>
__global__ void fused_add_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps,
				  int rows, int cols)
{
	__shared__ float partial[256];
	T *res = residual + (size_t)blockIdx.x * cols;
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *outr = out + (size_t)blockIdx.x * cols;

	float sumsq = 0.0f;
	for (int i = threadIdx.x; i < cols; i += blockDim.x) {
		T s = (T)((float)xr[i] + (float)res[i]);
		res[i] = s;
		float v = (float)s;
		sumsq += v * v;
	}
	partial[threadIdx.x] = sumsq;
	__syncthreads();
	for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
		if (threadIdx.x < stride)
			partial[threadIdx.x] += partial[threadIdx.x + stride];
		__syncthreads();
	}
	float inv = 1.0f / sqrtf(partial[0] / cols + eps);
	for (int i = threadIdx.x; i < cols; i += blockDim.x)
		outr[i] = (T)((float)res[i] * inv * (float)w[i]);
}
