/*
 * Style: 2-D blocks with threadIdx.y as the row and threadIdx.x as the
 * lane (block 32 x 8: a warp per row, eight rows per block), the warp's
 * sum in a `__device__` helper with shuffles, a template element type.
 * Computes: RMSNorm of each row of [rows, cols] times a weight, fp32 or
 * bf16 storage, fp32 math.
 * Flags: none
 * Expect: vectorize
 */
#include <cuda_bf16.h>

__device__ __forceinline__ float warp_sum(float v)
{
	for (int mask = 16; mask > 0; mask /= 2)
		v += __shfl_xor_sync(0xffffffff, v, mask);
	return v;
}

#pragma astra optimize noalias
#pragma astra shapes(rows=8192, cols=4096) shapes(rows=1024, cols=2048) shapes(rows=9, cols=1001) shapes(rows=1, cols=5)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols]) outputs(out)
#pragma astra launch(grid=(rows + 7) / 8, block=dim3(32, 8))
#pragma astra types(T=float) types(T=__nv_bfloat16)
#pragma astra scalars(eps=1e-6f) flops(4*rows*cols)
template <typename T>
__global__ void rmsnorm_2d(T *out, const T *x, const T *w, float eps, int rows, int cols)
{
	int row = blockIdx.x * blockDim.y + threadIdx.y;
	if (row >= rows)
		return;
	const T *xr = x + (size_t)row * cols;
	float ss = 0.0f;
	for (int j = threadIdx.x; j < cols; j += blockDim.x) {
		float v = (float)xr[j];
		ss += v * v;
	}
	ss = warp_sum(ss);
	float scale = rsqrtf(ss / cols + eps);
	T *o = out + (size_t)row * cols;
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		o[j] = (T)((float)xr[j] * scale * (float)w[j]);
}
