// style: the element type through a using alias, no template
// expect: elems-per-thread
#include <cuda_fp16.h>

using scalar_t = __half;

#pragma astra shapes(tokens=64, d=4096) shapes(tokens=3, d=1001)
#pragma astra buffers(out[tokens*d], input[tokens*2*d])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens*d + 255)/256, block=256)
#pragma astra range(input: -8 .. 8)
#pragma astra tolerance(out: rtol=1e-2, atol=1e-3)
#pragma astra noalias
__global__ void silu_mul(scalar_t *out, const scalar_t *input, int tokens, int d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= tokens * d)
		return;
	int t = i / d;
	int j = i % d;
	float gate = __half2float(input[t * 2 * d + j]);
	float up = __half2float(input[t * 2 * d + d + j]);
	out[i] = __float2half(gate / (1.0f + expf(-gate)) * up);
}
