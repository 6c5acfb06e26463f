#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(rows=16, cols=4096) shapes(rows=3, cols=1001)
#pragma astra buffers(out[rows * cols], res[rows * cols], x[rows * cols], w[cols])
#pragma astra outputs(out, res)
#pragma astra launch(grid=rows, block=256)
#pragma astra types(T=__half) types(T=__nv_bfloat16)
template <typename T>
__global__ void add_scale(T *out, T *res, const T *x, const T *w, int rows, int cols)
{
	T *r = res + (size_t)blockIdx.x * cols;
	const T *xr = x + (size_t)blockIdx.x * cols;
	for (int i = threadIdx.x; i < cols; i += blockDim.x) {
		float s = (float)xr[i] + (float)r[i];
		r[i] = (T)s;
		out[(size_t)blockIdx.x * cols + i] = (T)(s * (float)w[i]);
	}
}
