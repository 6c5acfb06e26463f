/*
 * Style: a typedef'd element type (`typedef __nv_bfloat16 floatX;`, as
 * training codes that switch precision with one line write it), a macro
 * constant, and an `if` block instead of an early return.
 * Computes: GELU, tanh approximation, of every element of a bf16 tensor
 * (the activation of GPT-2's MLP).
 * Flags: none
 * Expect: elems-per-thread half2 fastmath
 */
#include <cuda_bf16.h>
#include <math.h>

typedef __nv_bfloat16 floatX;

#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)

#pragma astra optimize noalias
#pragma astra shapes(N=50331648) shapes(N=4194304) shapes(N=1000003) shapes(N=4097) shapes(N=1)
#pragma astra buffers(out[N], inp[N]) outputs(out)
#pragma astra launch(grid=(N + 127) / 128, block=128)
#pragma astra range(inp: -6 .. 6) tolerance(rtol=2e-2, atol=2e-2) flops(12*N)
__global__ void gelu_forward(floatX *out, const floatX *inp, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N) {
		float xi = (float)inp[i];
		float cube = 0.044715f * xi * xi * xi;
		out[i] = (floatX)(0.5f * xi * (1.0f + tanhf(GELU_SCALING_FACTOR * (xi + cube))));
	}
}
