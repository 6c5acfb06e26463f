/*
 * rmsnorm - RMS normalization of each row (LLaMA's RMSNorm):
 * out[r][i] = x[r][i] / sqrt(mean_i(x[r][i]^2) + eps) * w[i].
 *
 * First version, THREAD-PER-ROW: one thread walks a whole row twice (sum of
 * squares, then the scaled copy) with scalar loads, as quick first versions
 * often do.  Neighbouring threads touch rows cols elements apart, so no load
 * is coalesced and only rows/128 blocks exist: the rules that move to a
 * block (or warp) per row have the most to gain here.
 */
#include <cuda_bf16.h>

#pragma astra optimize
#pragma astra shapes(rows=2048, cols=12288) shapes(rows=256, cols=4096)
#pragma astra shapes(rows=7, cols=5120) shapes(rows=1, cols=14336) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127)/128, block=128)
#pragma astra types(T=float) types(T=__nv_bfloat16)
#pragma astra scalars(eps=1e-6f)
#pragma astra range(x: -4 .. 4)
#pragma astra noalias
#pragma astra flops(4*rows*cols)
template <typename T>
__global__ void rmsnorm(T *out, const T *x, const T *w, float eps, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const T *xr = x + (size_t)row * cols;
	T *outr = out + (size_t)row * cols;

	float sumsq = 0.0f;
	for (int i = 0; i < cols; i++) {
		float v = (float)xr[i];
		sumsq += v * v;
	}
	float inv = 1.0f / sqrtf(sumsq / cols + eps);
	for (int i = 0; i < cols; i++)
		outr[i] = (T)((float)xr[i] * inv * (float)w[i]);
}
