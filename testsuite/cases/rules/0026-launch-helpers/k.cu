#include <cuda_runtime.h>

#define ROWS_PER_BLOCK 4

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

#pragma astra noalias
#pragma astra shapes(rows=64, cols=1000) shapes(rows=3, cols=7)
#pragma astra buffers(out[rows*cols], x[rows*cols]) outputs(out)
#pragma astra launch(grid=ceil_div(rows, ROWS_PER_BLOCK), block=128, shmem=ROWS_PER_BLOCK * cols * sizeof(float))
__global__ void stage_rows(float *out, const float *x, int rows, int cols)
{
	extern __shared__ float rowbuf[];
	int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
	int lane = threadIdx.x % 32;
	float *buf = rowbuf + (threadIdx.x / 32) * cols;
	if (r < rows)
		for (int j = lane; j < cols; j += 32)
			buf[j] = x[r * cols + j];
	__syncthreads();
	if (r < rows)
		for (int j = lane; j < cols; j += 32)
			out[r * cols + j] = 2.0f * buf[cols - 1 - j];
}
