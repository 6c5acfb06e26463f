// style: typedef'd type, 64-bit index in two statements, if block, helper math
// expect: elems-per-thread grid-stride fastmath
#include <cuda_bf16.h>
#include <stdint.h>

typedef __nv_bfloat16 floatX;

__device__ inline float silu(float x)
{
	return x / (1.0f + expf(-x));
}

#pragma astra shapes(tokens=64, d=4096) shapes(tokens=3, d=1001)
#pragma astra buffers(out[tokens*d], input[tokens*2*d])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens*d + 255)/256, block=256)
#pragma astra range(input: -8 .. 8)
#pragma astra tolerance(out: rtol=1e-2, atol=1e-3)
#pragma astra noalias
__global__ void silu_mul(floatX *out, const floatX *input, int tokens, int d)
{
	int64_t idx = blockIdx.x;
	idx = idx * blockDim.x + threadIdx.x;
	const int64_t n = (int64_t)tokens * d;
	if (idx < n) {
		int64_t t = idx / d;
		int64_t j = idx % d;
		float gate = __bfloat162float(input[t * 2 * d + j]);
		float up = __bfloat162float(input[t * 2 * d + d + j]);
		out[idx] = __float2bfloat16(silu(gate) * up);
	}
}
