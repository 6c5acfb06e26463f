// The naive transpose: a flat thread per element, a 2-D grid with a
// bounds-checked block, a 2-D grid with an early return.
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(rows=37, cols=100) buffers(out[rows*cols], in[rows*cols]) outputs(out)
#pragma astra launch(grid=(rows * cols + 255) / 256, block=256)
__global__ void tr__ref(float *out, const float *in, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols) {
		int r = i / cols, c = i % cols;
		out[c * rows + r] = in[i];
	}
}

#pragma astra optimize
#pragma astra shapes(rows=37, cols=100) buffers(out[rows*cols], in[rows*cols]) outputs(out)
#pragma astra launch(grid=dim3((cols + 15) / 16, (rows + 15) / 16), block=dim3(16, 16))
__global__ void tr__2d(float *out, const float *in, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (c < cols && r < rows)
		out[c * rows + r] = in[r * cols + c];
}

#pragma astra optimize
#pragma astra shapes(rows=37, cols=100) buffers(out[rows*cols], in[rows*cols]) outputs(out)
#pragma astra launch(grid=dim3((cols + 31) / 32, (rows + 7) / 8), block=dim3(32, 8))
__global__ void tr__return(float *out, const float *in, int rows, int cols)
{
	unsigned x = threadIdx.x + blockIdx.x * blockDim.x;
	unsigned y = threadIdx.y + blockIdx.y * blockDim.y;
	if (x >= cols || y >= rows)
		return;
	out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
}
