/*
 * silu_and_mul written the way the Astra paper's starting kernel is
 * (arXiv 2509.07506; SGLang's silu_and_mul before optimization): scalar
 * fp16 loads and stores, blocks striding over the tokens and threads over
 * the hidden dimension, math in fp32 with expf and a division.  input
 * holds one row of 2*d values per token, the gate half then the up half;
 * out[t][i] = silu(gate[t][i]) * up[t][i].
 *
 * The shapes: five of the serving kind, from one decode token to a 2048-
 * token prefill at the hidden sizes of 7B-8B models (4096, 11008, 14336),
 * and a tiny odd one, 3 x 1001, where a launch costs more than the work.
 * bench/run-dispatch warms this file up from an empty cache and reports,
 * per shape, the original, every candidate that passed and the stored set.
 */
#include <cuda_fp16.h>

#pragma astra optimize
#pragma astra shapes(tokens=2048, d=14336) shapes(tokens=512, d=14336) shapes(tokens=128, d=11008)
#pragma astra shapes(tokens=16, d=11008) shapes(tokens=1, d=4096) shapes(tokens=3, d=1001)
#pragma astra buffers(out[tokens*d], input[tokens*2*d])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens < 256 ? tokens : 256), block=128)
#pragma astra range(input: -8 .. 8)
#pragma astra tolerance(out: rtol=1e-2, atol=1e-3)
#pragma astra noalias
#pragma astra flops(5*tokens*d)
__global__ void silu_and_mul(__half *out, const __half *input, int tokens, int d)
{
	for (int t = blockIdx.x; t < tokens; t += gridDim.x) {
		const __half *gate = input + (size_t)t * 2 * d;
		const __half *up = gate + d;
		__half *o = out + (size_t)t * d;
		for (int i = threadIdx.x; i < d; i += blockDim.x) {
			float g = __half2float(gate[i]);
			float u = __half2float(up[i]);
			o[i] = __float2half(g / (1.0f + expf(-g)) * u);
		}
	}
}

/* How a caller launches it (a build through astra-cc routes this through the launcher). */
void silu_and_mul_launch(__half *out, const __half *input, int tokens, int d, cudaStream_t stream)
{
	silu_and_mul<<<tokens < 256 ? tokens : 256, 128, 0, stream>>>(out, input, tokens, d);
}
