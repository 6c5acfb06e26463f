/*
 * Style: the textbook 2-D transpose: x and y from a 2-D grid of 2-D
 * blocks, `if (x < cols && y < rows)`, the store strided by rows.
 * Computes: out = in^T for an fp32 [rows, cols] matrix.
 * Flags: none
 * Expect: transpose-tile
 */
#include <cuda_runtime.h>

#pragma astra optimize noalias
#pragma astra shapes(rows=8192, cols=4096) shapes(rows=1024, cols=1024) shapes(rows=33, cols=67) shapes(rows=1, cols=5)
#pragma astra buffers(out[rows*cols], in[rows*cols]) outputs(out)
#pragma astra launch(grid=dim3((cols + 15) / 16, (rows + 15) / 16), block=dim3(16, 16))
#pragma astra tolerance(rtol=0, atol=0)
__global__ void transpose_naive(float *out, const float *in, int rows, int cols)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < cols && y < rows)
		out[x * rows + y] = in[y * cols + x];
}
