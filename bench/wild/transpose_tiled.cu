/*
 * Style: an already optimized production transpose: TILE_DIM and
 * BLOCK_ROWS macros, a padded shared-memory tile, each thread moving
 * TILE_DIM / BLOCK_ROWS elements, a template element type.  The test is:
 * no regression.
 * Computes: out = in^T for a [rows, cols] matrix, fp32 or fp16.
 * Flags: none
 * Expect: none (already tiled: no regression)
 */
#include <cuda_fp16.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

#pragma astra optimize noalias
#pragma astra shapes(rows=8192, cols=8192) shapes(rows=2048, cols=1024) shapes(rows=33, cols=67) shapes(rows=1, cols=3)
#pragma astra buffers(out[rows*cols], in[rows*cols]) outputs(out)
#pragma astra launch(grid=dim3((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM), \
	block=dim3(TILE_DIM, BLOCK_ROWS))
#pragma astra types(T=float) types(T=__half) tolerance(rtol=0, atol=0)
template <typename T>
__global__ void transpose_tiled(T *__restrict__ out, const T *__restrict__ in, int rows, int cols)
{
	__shared__ T tile[TILE_DIM][TILE_DIM + 1];
	int x = blockIdx.x * TILE_DIM + threadIdx.x;
	int y = blockIdx.y * TILE_DIM + threadIdx.y;
	for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
		if (x < cols && y + j < rows)
			tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
	__syncthreads();
	x = blockIdx.y * TILE_DIM + threadIdx.x;
	y = blockIdx.x * TILE_DIM + threadIdx.y;
	for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
		if (x < rows && y + j < cols)
			out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
