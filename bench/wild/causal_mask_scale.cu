/*
 * Style: a 3-D grid: blockIdx.z the batch*head, blockIdx.y the query
 * row, x over the key columns; an `if` block for the bounds; -INFINITY
 * written where the mask hides a score.
 * Computes: scaled, causally masked attention scores,
 * out[bh, q, k] = k <= q ? att[bh, q, k] * scale : -inf.
 * Flags: none
 * Expect: elems-per-thread
 */
#include <cuda_runtime.h>
#include <math.h>

#pragma astra optimize noalias
#pragma astra shapes(BH=64, T=1024) shapes(BH=8, T=512) shapes(BH=3, T=77) shapes(BH=1, T=1)
#pragma astra buffers(out[BH*T*T], att[BH*T*T]) outputs(out)
#pragma astra launch(grid=dim3((T + 255) / 256, T, BH), block=256)
#pragma astra scalars(scale=0.125f) flops(BH*T*T)
__global__ void causal_mask_scale(float *out, const float *att, float scale, int BH, int T)
{
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	int q = blockIdx.y;
	int bh = blockIdx.z;
	if (k < T) {
		size_t off = ((size_t)bh * T + q) * T + k;
		out[off] = k <= q ? att[off] * scale : -INFINITY;
	}
}
