/*
 * silu_and_mul - the SwiGLU activation of LLaMA-style MLPs (SGLang and
 * vLLM `silu_and_mul`).  input holds one row of 2*d values per token, the
 * gate half then the up half; out[t][i] = silu(gate[t][i]) * up[t][i].
 *
 * First version: one element per thread, scalar 16-bit loads, math in fp32.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra optimize
#pragma astra shapes(tokens=2048, d=14336) shapes(tokens=128, d=11008)
#pragma astra shapes(tokens=7, d=5120) shapes(tokens=1, d=4096) shapes(tokens=3, d=1001)
#pragma astra buffers(out[tokens*d], input[tokens*2*d])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens*d + 255)/256, block=256)
#pragma astra types(T=__half) types(T=__nv_bfloat16)
#pragma astra range(input: -8 .. 8)
#pragma astra tolerance(out: rtol=1e-2, atol=1e-3)
#pragma astra noalias
#pragma astra flops(5*tokens*d)
template <typename T>
__global__ void silu_and_mul(T *out, const T *input, int tokens, int d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= tokens * d)
		return;
	int t = i / d;
	int j = i % d;
	float gate = (float)input[t * 2 * d + j];
	float up = (float)input[t * 2 * d + d + j];
	out[i] = (T)(gate / (1.0f + expf(-gate)) * up);
}
