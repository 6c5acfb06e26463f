/*
 * Style: 64-bit indexing for tensors past 2^31 elements: an int64_t index
 * built with a cast, an int64_t element count, a modulo by the hidden size.
 * Computes: out = max(x + bias[column], 0) over a [tokens, hidden] fp32
 * activation (bias + ReLU after a linear layer).
 * Flags: none
 * Expect: elems-per-thread
 */
#include <cuda_runtime.h>
#include <stdint.h>

#pragma astra optimize noalias
#pragma astra shapes(numel=33554432, hidden=8192) shapes(numel=4194304, hidden=4096) \
	shapes(numel=7007, hidden=1001) shapes(numel=3, hidden=3)
#pragma astra buffers(out[numel], x[numel], bias[hidden]) outputs(out)
#pragma astra launch(grid=(numel + 255) / 256, block=256)
#pragma astra flops(2*numel)
__global__ void bias_relu_int64(float *out, const float *x, const float *bias, int64_t numel, int hidden)
{
	int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= numel)
		return;
	float v = x[idx] + bias[idx % hidden];
	out[idx] = fmaxf(v, 0.0f);
}
