/*
 * Style: a `while` grid-stride loop with the stride in a local, launched
 * on a fixed grid (a literal number of blocks), a uint8_t mask.
 * Computes: inverted dropout with a precomputed keep mask:
 * out = mask ? x * scale : 0, scale = 1 / (1 - p).
 * Flags: none
 * Expect: vectorize
 */
#include <cuda_runtime.h>
#include <stdint.h>

#pragma astra optimize noalias
#pragma astra shapes(n=67108864) shapes(n=4194304) shapes(n=100003) shapes(n=31) shapes(n=1)
#pragma astra buffers(out[n], x[n], mask[n]) outputs(out)
#pragma astra launch(grid=1024, block=256)
#pragma astra scalars(scale=1.25f) range(mask: 0 .. 1) flops(n)
__global__ void dropout_apply(float *out, const float *x, const uint8_t *mask, float scale, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	const int stride = blockDim.x * gridDim.x;
	while (i < n) {
		out[i] = mask[i] ? x[i] * scale : 0.0f;
		i += stride;
	}
}
