#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(rows=2048, cols=4096) shapes(rows=2048, cols=1003)
#pragma astra buffers(out[rows * cols], x[rows * cols], w[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=rows, block=256)
#pragma astra types(T=__nv_bfloat16)
template <typename T>
__global__ void center_scale(T *out, const T *x, const T *w, int rows, int cols)
{
	__shared__ float red[256];
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *o = out + (size_t)blockIdx.x * cols;
	float s = 0.0f;
	for (int i = threadIdx.x; i < cols; i += blockDim.x)
		s += (float)xr[i];
	red[threadIdx.x] = s;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k >>= 1) {
		if (threadIdx.x < k)
			red[threadIdx.x] += red[threadIdx.x + k];
		__syncthreads();
	}
	float mean = red[0] / cols;
	for (int i = threadIdx.x; i < cols; i += blockDim.x)
		o[i] = (T)(((float)xr[i] - mean) * (float)w[i]);
}
