#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(rows=16, cols=4096) shapes(rows=3, cols=1001)
#pragma astra buffers(out[rows * cols], x[rows * cols], w[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=rows, block=256)
#pragma astra types(T=__half) types(T=__nv_bfloat16)
template <typename T>
__global__ void scale_rows(T *out, const T *x, const T *w, int rows, int cols)
{
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *o = out + (size_t)blockIdx.x * cols;
	for (int i = threadIdx.x; i < cols; i += blockDim.x)
		o[i] = (T)((float)xr[i] * (float)w[i]);
}
