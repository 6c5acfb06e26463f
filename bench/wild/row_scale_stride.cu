/*
 * Style: a block per row with a literal stride (`j += 256`, the block
 * size written out), a per-row factor from memory.
 * Computes: out[row, :] = x[row, :] * scales[row] (dequantizing rows
 * with per-token scales), fp32.
 * Flags: none
 * Expect: vectorize
 */
#include <cuda_runtime.h>

#pragma astra optimize noalias
#pragma astra shapes(rows=8192, cols=8192) shapes(rows=1024, cols=4096) shapes(rows=7, cols=1003) shapes(rows=1, cols=5)
#pragma astra buffers(out[rows*cols], x[rows*cols], scales[rows]) outputs(out)
#pragma astra launch(grid=rows, block=256)
#pragma astra flops(rows*cols)
__global__ void row_scale_stride(float *out, const float *x, const float *scales, int rows, int cols)
{
	int row = blockIdx.x;
	float s = scales[row];
	for (int j = threadIdx.x; j < cols; j += 256)
		out[(size_t)row * cols + j] = x[(size_t)row * cols + j] * s;
}
