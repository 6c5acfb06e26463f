#pragma once
#include "util.cuh"

// Uses TILE from the including file.
#pragma astra shapes(n=1024) shapes(n=96) buffers(out[n*n], in[n*n]) outputs(out)
#pragma astra launch(grid=dim3(n / TILE, n / TILE), block=dim3(TILE, 8))
__global__ void transpose(float *out, const float *in, int n)
{
	__shared__ float tile[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += 8)
		tile[threadIdx.y + j][threadIdx.x] = load(in, (y + j) * n + x);
	__syncthreads();
	for (int j = 0; j < TILE; j += 8)
		out[(x + j) * n + y] = tile[threadIdx.x][threadIdx.y + j];
}
