// style: bf16 through a typedef, conversions through helpers, no template
// expect: block-per-row warp-per-row
#include <cuda_bf16.h>

typedef __nv_bfloat16 bf16;

__device__ __forceinline__ float to_f(bf16 v)
{
	return __bfloat162float(v);
}

#pragma astra shapes(rows=256, cols=1024) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127)/128, block=128)
#pragma astra scalars(eps=1e-6f)
#pragma astra range(x: -4 .. 4)
#pragma astra noalias
__global__ void rmsnorm_rows(bf16 *out, const bf16 *x, const bf16 *w, float eps, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const bf16 *xr = x + (size_t)row * cols;
	bf16 *outr = out + (size_t)row * cols;
	float sumsq = 0.0f;
	for (int i = 0; i < cols; i++) {
		float v = to_f(xr[i]);
		sumsq += v * v;
	}
	float inv = rsqrtf(sumsq / cols + eps);
	for (int i = 0; i < cols; i++)
		outr[i] = __float2bfloat16(to_f(xr[i]) * inv * to_f(w[i]));
}
