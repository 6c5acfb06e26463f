/*
 * Style: the thread index through an alias (`const int tid =
 * threadIdx.x;`) and the global index from it, a negative slope as a
 * kernel argument, fp16 storage.
 * Computes: leaky ReLU, out = x > 0 ? x : slope * x.
 * Flags: none
 * Expect: elems-per-thread half2
 */
#include <cuda_fp16.h>

#pragma astra optimize noalias
#pragma astra shapes(n=67108864) shapes(n=1048576) shapes(n=4099) shapes(n=1)
#pragma astra buffers(out[n], x[n]) outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra scalars(slope=0.01f) tolerance(rtol=5e-3, atol=5e-3) flops(n)
__global__ void leaky_relu_tid(__half *out, const __half *x, float slope, int n)
{
	const int tid = threadIdx.x;
	const int gid = blockIdx.x * blockDim.x + tid;
	if (gid >= n)
		return;
	float v = __half2float(x[gid]);
	out[gid] = __float2half(v > 0.0f ? v : slope * v);
}
