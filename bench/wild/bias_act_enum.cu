/*
 * Style: 2-D blocks with threadIdx.y as the row (block 32 x 8), an enum
 * template parameter choosing the activation in a `__device__` helper,
 * and a template element type.
 * Computes: out = act(x + bias[column]) over [rows, cols], act one of
 * identity, ReLU, SiLU; fp32 and fp16.
 * Flags: none
 * Expect: elems-per-thread half2
 */
#include <cuda_fp16.h>

enum class Act { None, Relu, Silu };

template <Act A>
__device__ __forceinline__ float activate(float v)
{
	if (A == Act::Relu)
		return v > 0.0f ? v : 0.0f;
	if (A == Act::Silu)
		return v / (1.0f + expf(-v));
	return v;
}

#pragma astra optimize noalias
#pragma astra shapes(rows=8192, cols=4096) shapes(rows=256, cols=1024) shapes(rows=9, cols=1001) shapes(rows=1, cols=1)
#pragma astra buffers(out[rows*cols], x[rows*cols], bias[cols]) outputs(out)
#pragma astra launch(grid=dim3((cols + 31) / 32, (rows + 7) / 8), block=dim3(32, 8))
#pragma astra types(T=float, A=Act::Relu) types(T=__half, A=Act::Silu)
#pragma astra range(x: -6 .. 6) tolerance(rtol=5e-3, atol=5e-3) flops(5*rows*cols)
template <typename T, Act A>
__global__ void bias_act_enum(T *out, const T *x, const T *bias, int rows, int cols)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row < rows && col < cols) {
		int i = row * cols + col;
		out[i] = (T)activate<A>((float)x[i] + (float)bias[col]);
	}
}
