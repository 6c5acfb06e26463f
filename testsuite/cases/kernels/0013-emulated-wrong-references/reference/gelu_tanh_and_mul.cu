/* Wrong: the original's code, and the last thread also writes one element
 * past the end of out. */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra launch(grid=(tokens*d + 255)/256, block=256)
template <typename T>
__global__ void gelu_tanh_and_mul(T *out, const T *input, int tokens, int d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= tokens * d)
		return;
	int t = i / d;
	int j = i % d;
	float x = (float)input[t * 2 * d + j];
	float up = (float)input[t * 2 * d + d + j];
	const float k0 = 0.7978845608028654f;
	const float k1 = 0.044715f;
	float gelu = 0.5f * x * (1.0f + tanhf(k0 * (x + k1 * x * x * x)));
	out[i] = (T)(gelu * up);
	if (i == tokens * d - 1)
		out[i + 1] = out[i];
}
