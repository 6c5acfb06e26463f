#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(rows=16, cols=8192)
#pragma astra buffers(out[rows], x[rows * cols])
#pragma astra outputs(out)
#pragma astra launch(grid=rows, block=256)
__global__ void rowmax(float *out, const float *x, int rows, int cols)
{
	__shared__ float red[256];
	float m = -INFINITY;
	for (int i = threadIdx.x; i < cols; i += blockDim.x)
		m = fmaxf(m, x[(size_t)blockIdx.x * cols + i]);
	red[threadIdx.x] = m;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = red[0];
}
