/*
 * Style: a size_t index built with static_cast and a size_t element
 * count, as code that must not overflow at 2^31 elements writes it.
 * Computes: out = bf16(x * scale), fp32 to bf16 with a scale (the cast
 * before a low-precision GEMM).
 * Flags: none
 * Expect: elems-per-thread
 */
#include <cuda_bf16.h>
#include <stddef.h>

#pragma astra optimize noalias
#pragma astra shapes(n=67108864) shapes(n=1048576) shapes(n=3001) shapes(n=1)
#pragma astra buffers(out[n], in[n]) outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra scalars(scale=0.125f) tolerance(rtol=2e-2, atol=2e-2) flops(n)
__global__ void cast_to_bf16(__nv_bfloat16 *out, const float *in, float scale, size_t n)
{
	const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = __float2bfloat16(in[i] * scale);
}
