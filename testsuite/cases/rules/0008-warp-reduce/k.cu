#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(rows=16, cols=4096)
#pragma astra buffers(out[rows * cols], x[rows * cols])
#pragma astra outputs(out)
#pragma astra launch(grid=rows, block=256)
__global__ void softmax_rows(float *out, const float *x, int rows, int cols)
{
	__shared__ float red[256];
	const float *xr = x + (size_t)blockIdx.x * cols;
	int tid = threadIdx.x;
	float m = -INFINITY;
	for (int i = tid; i < cols; i += blockDim.x)
		m = fmaxf(m, xr[i]);
	red[tid] = m;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			red[tid] = fmaxf(red[tid], red[tid + s]);
		__syncthreads();
	}
	m = red[0];
	__syncthreads();
	float sum = 0.0f;
	for (int i = tid; i < cols; i += blockDim.x)
		sum += expf(xr[i] - m);
	red[tid] = sum;
	__syncthreads();
	for (unsigned s = blockDim.x >> 1; s > 0; s /= 2) {
		if (tid < s)
			red[tid] += red[tid + s];
		__syncthreads();
	}
	sum = red[0];
	for (int i = tid; i < cols; i += blockDim.x)
		out[(size_t)blockIdx.x * cols + i] = expf(xr[i] - m) / sum;
}
