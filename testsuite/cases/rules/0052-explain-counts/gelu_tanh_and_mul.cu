/*
 * gelu_tanh_and_mul - GeGLU with the tanh approximation of GELU (SGLang
 * and vLLM `gelu_tanh_and_mul`, used by Gemma).  input holds one row of 2*d
 * values per token, the gate half then the up half;
 * out[t][i] = gelu_tanh(gate[t][i]) * up[t][i] with
 * gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
 *
 * First version: one element per thread, scalar 16-bit loads, math in fp32.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra optimize
#pragma astra shapes(tokens=2048, d=14336) shapes(tokens=64, d=16384)
#pragma astra shapes(tokens=7, d=5120) shapes(tokens=1, d=4096) shapes(tokens=3, d=1001)
#pragma astra buffers(out[tokens*d], input[tokens*2*d])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens*d + 255)/256, block=256)
#pragma astra types(T=__half) types(T=__nv_bfloat16)
#pragma astra range(input: -8 .. 8)
#pragma astra tolerance(out: rtol=1e-2, atol=1e-3)
#pragma astra noalias
#pragma astra flops(10*tokens*d)
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
	const float k0 = 0.7978845608028654f; /* sqrt(2/pi) */
	const float k1 = 0.044715f;
	float gelu = 0.5f * x * (1.0f + tanhf(k0 * (x + k1 * x * x * x)));
	out[i] = (T)(gelu * up);
}
