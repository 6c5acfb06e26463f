#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(rows=64, cols=4096) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows * cols], x[rows * cols], w[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
#pragma astra types(T=__nv_bfloat16) types(T=float)
#pragma astra scalars(eps=1e-6f)
#pragma astra noalias
template <typename T>
__global__ void rmsnorm(T *out, const T *x, const T *w, float eps, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const T *xr = x + (size_t)row * cols;
	T *outr = out + (size_t)row * cols;
	float sumsq = 0.0f;
	for (int i = 0; i < cols; i++) {
		float v = (float)xr[i];
		sumsq += v * v;
	}
	float inv = 1.0f / sqrtf(sumsq / cols + eps);
	for (int i = 0; i < cols; i++)
		outr[i] = (T)((float)xr[i] * inv * (float)w[i]);
}
