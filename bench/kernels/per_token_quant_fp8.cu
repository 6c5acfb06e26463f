/*
 * per_token_quant_fp8 - dynamic per-token FP8 (e4m3) quantization, as
 * SGLang/vLLM run it before FP8 GEMMs: for each row (token),
 * scale = max|x| / 448 and out = x / scale, saturated to the e4m3 range.
 * Both the quantized row and the per-token scale are results.
 *
 * First version: a block of 256 threads per row, scalar loads and 1-byte
 * stores, the max reduced through a shared-memory tree.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#pragma astra optimize
#pragma astra shapes(tokens=2048, hidden=14336) shapes(tokens=128, hidden=4096)
#pragma astra shapes(tokens=7, hidden=5120) shapes(tokens=1, hidden=8192) shapes(tokens=3, hidden=1001)
#pragma astra buffers(out[tokens*hidden], scales[tokens], input[tokens*hidden])
#pragma astra outputs(out, scales)
#pragma astra launch(grid=tokens, block=256)
#pragma astra types(T=__half) types(T=__nv_bfloat16)
#pragma astra range(input: -20 .. 20)
#pragma astra tolerance(out: rtol=0.13, atol=2e-3)
#pragma astra noalias
#pragma astra flops(2*tokens*hidden)
template <typename T>
__global__ void per_token_quant_fp8(__nv_fp8_e4m3 *out, float *scales, const T *input,
				    int tokens, int hidden)
{
	__shared__ float red[256];
	const T *in = input + (size_t)blockIdx.x * hidden;
	__nv_fp8_e4m3 *o = out + (size_t)blockIdx.x * hidden;
	int tid = threadIdx.x;

	float amax = 0.0f;
	for (int i = tid; i < hidden; i += blockDim.x)
		amax = fmaxf(amax, fabsf((float)in[i]));
	red[tid] = amax;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (tid < s)
			red[tid] = fmaxf(red[tid], red[tid + s]);
		__syncthreads();
	}
	float scale = fmaxf(red[0], 1e-10f) / 448.0f; /* 448: largest finite e4m3 */
	if (tid == 0)
		scales[blockIdx.x] = scale;
	for (int i = tid; i < hidden; i += blockDim.x)
		o[i] = __nv_fp8_e4m3((float)in[i] / scale);
}
