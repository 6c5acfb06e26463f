/*
 * Style: the element type through a `using` alias at file scope, the
 * global index written thread-first (`threadIdx.x + blockIdx.x *
 * blockDim.x`), and a block of 512 threads.
 * Computes: the residual connection out = x + residual, fp16, with the
 * sum taken in fp32.
 * Flags: none
 * Expect: elems-per-thread half2
 */
#include <cuda_fp16.h>

using scalar_t = __half;

#pragma astra optimize noalias
#pragma astra shapes(n=67108864) shapes(n=8388608) shapes(n=65537) shapes(n=5120) shapes(n=1)
#pragma astra buffers(out[n], x[n], residual[n]) outputs(out)
#pragma astra launch(grid=(n + 511) / 512, block=512)
#pragma astra tolerance(rtol=5e-3, atol=5e-3) flops(n)
__global__ void residual_add(scalar_t *out, const scalar_t *x, const scalar_t *residual, int n)
{
	int idx = threadIdx.x + blockIdx.x * blockDim.x;
	if (idx >= n)
		return;
	float a = __half2float(x[idx]);
	float b = __half2float(residual[idx]);
	out[idx] = __float2half(a + b);
}
