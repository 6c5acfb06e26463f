/*
 * Residual add and RMSNorm of short rows (a 768-wide model), a block of
 * 256 threads per row, the sum of squares in a shared-memory tree and the
 * scale broadcast through shared memory.
 */
#include <cuda_bf16.h>

#pragma astra shapes(rows=1024, cols=768) shapes(rows=5, cols=1003) shapes(rows=2, cols=64)
#pragma astra buffers(out[rows*cols], residual[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out, residual)
#pragma astra launch(grid=rows, block=256)
#pragma astra types(T=__nv_bfloat16) types(T=float)
#pragma astra scalars(eps=1e-6f)
#pragma astra range(x: -2 .. 2) range(residual: -2 .. 2)
#pragma astra noalias
template <typename T>
__global__ void residual_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps, int rows, int cols)
{
	__shared__ float red[256];
	__shared__ float scale;
	const int tid = threadIdx.x;
	T *res = residual + (size_t)blockIdx.x * cols;
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *o = out + (size_t)blockIdx.x * cols;

	float ss = 0.0f;
	for (int i = tid; i < cols; i += blockDim.x) {
		float v = (float)xr[i] + (float)res[i];
		res[i] = (T)v;
		ss += v * v;
	}
	red[tid] = ss;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			red[tid] += red[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		scale = rsqrtf(red[0] / cols + eps);
	__syncthreads();
	for (int i = tid; i < cols; i += blockDim.x)
		o[i] = (T)((float)res[i] * scale * (float)w[i]);
}
