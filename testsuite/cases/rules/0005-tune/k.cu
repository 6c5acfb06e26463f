#include <cuda_fp16.h>
#include <cuda_bf16.h>

#ifndef BLOCK
#define BLOCK 256
#endif
#pragma astra shapes(rows=64, cols=1000)
#pragma astra buffers(out[rows], x[rows * cols])
#pragma astra outputs(out)
#pragma astra launch(grid=rows, block=BLOCK)
#pragma astra tune(BLOCK: 128 256 512)
__global__ void rowsum(float *out, const float *x, int rows, int cols)
{
	__shared__ float part[BLOCK];
	float s = 0.0f;
	for (int i = threadIdx.x; i < cols; i += BLOCK)
		s += x[blockIdx.x * cols + i];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int k = BLOCK / 2; k > 0; k >>= 1) {
		if (threadIdx.x < k)
			part[threadIdx.x] += part[threadIdx.x + k];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = part[0];
}
