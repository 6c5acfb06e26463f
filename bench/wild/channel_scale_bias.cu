/*
 * Style: `#define` for the element type, a BLOCK_SIZE macro that the build
 * overrides with -D, and a function-like CEIL_DIV macro in the launch.
 * Computes: a per-channel affine map out = x * scale[c] + bias[c] over a
 * [rows, C] activation (a folded batch norm at inference).
 * Flags: -DBLOCK_SIZE=128
 * Expect: elems-per-thread
 */
#include <cuda_runtime.h>

#define DTYPE float
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

#pragma astra optimize noalias
#pragma astra shapes(rows=16384, C=2048) shapes(rows=512, C=768) shapes(rows=33, C=1001) shapes(rows=1, C=3)
#pragma astra buffers(out[rows*C], x[rows*C], scale[C], bias[C]) outputs(out)
#pragma astra launch(grid=CEIL_DIV(rows * C, BLOCK_SIZE), block=BLOCK_SIZE)
#pragma astra flops(2*rows*C)
__global__ void channel_scale_bias(DTYPE *out, const DTYPE *x, const DTYPE *scale, const DTYPE *bias, int rows, int C)
{
	int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
	if (i >= rows * C)
		return;
	int c = i % C;
	out[i] = x[i] * scale[c] + bias[c];
}
