/*
 * add_rmsnorm - the verifier suite's in-place kernel, written as a first
 * version is: residual <- residual + x (in place), then
 * out = residual * rsqrt(mean(residual^2) + eps) * w; a block of 256
 * threads per row, scalar accesses, a shared-memory tree reduction.
 * Both out and residual are results; the candidates next to this file
 * each make one mistake (wrong/) or are correct rewrites (right/).
 */
#include <cuda_bf16.h>

#pragma astra optimize
#pragma astra shapes(rows=64, cols=4096) shapes(rows=7, cols=5120)
#pragma astra shapes(rows=1, cols=1003) shapes(rows=3, cols=17)
#pragma astra buffers(out[rows*cols], residual[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out, residual)
#pragma astra launch(grid=rows, block=256)
#pragma astra types(T=float) types(T=__nv_bfloat16)
#pragma astra scalars(eps=1e-6f)
#pragma astra range(x: -2 .. 2) range(residual: -2 .. 2)
#pragma astra flops(5*rows*cols)
template <typename T>
__global__ void add_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps, int rows, int cols)
{
	__shared__ float partial[256];
	T *res = residual + (size_t)blockIdx.x * cols;
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *o = out + (size_t)blockIdx.x * cols;

	float sumsq = 0.0f;
	for (int i = threadIdx.x; i < cols; i += blockDim.x) {
		T s = (T)((float)xr[i] + (float)res[i]);
		res[i] = s;
		sumsq += (float)s * (float)s;
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
		o[i] = (T)((float)res[i] * inv * (float)w[i]);
}
