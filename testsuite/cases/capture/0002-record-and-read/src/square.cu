/* A 2-D kernel as image and matrix code often has it: a 16x16 block, a row and a column. */
#include <cuda_runtime.h>

#pragma astra optimize
__global__ void scale_2d(float *dst, const float *src, float alpha, int height, int width)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < width && y < height)
		dst[y * width + x] = alpha * src[y * width + x];
}

void run_scale_2d(float *dst, const float *src, float alpha, int height, int width)
{
	dim3 block(16, 16);
	dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
	scale_2d<<<grid, block>>>(dst, src, alpha, height, width);
}
