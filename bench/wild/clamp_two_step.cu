/*
 * Style: the global index set in two statements (`i = blockDim.x *
 * blockIdx.x; i += threadIdx.x;`), the block's offset first.
 * Computes: clamp every element of an fp32 tensor to [lo, hi] (gradient
 * or activation clipping).
 * Flags: none
 * Expect: elems-per-thread
 */
#include <cuda_runtime.h>

#pragma astra optimize noalias
#pragma astra shapes(n=67108864) shapes(n=2097152) shapes(n=65535) shapes(n=2)
#pragma astra buffers(out[n], in[n]) outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra scalars(lo=-0.5f, hi=0.75f) flops(2*n)
__global__ void clamp_two_step(float *out, const float *in, float lo, float hi, int n)
{
	int i;
	i = blockDim.x * blockIdx.x;
	i += threadIdx.x;
	if (i < n) {
		float v = in[i];
		if (v < lo)
			v = lo;
		if (v > hi)
			v = hi;
		out[i] = v;
	}
}
