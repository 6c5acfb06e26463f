#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define TAPS 5
#pragma astra shapes(n=1000)
#pragma astra buffers(out[n], x[n + 64])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra types(K=3)
template <int K>
__global__ void stencil(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float s = 0.0f;
	for (int k = 0; k < K; ++k)          /* template bound: unrolled */
		s += x[i + k];
	for (int k = 0; k < 4; k++)          /* small literal: unrolled */
		s += 0.5f * x[i + k];
	for (int k = 0; k < 64; k++)         /* 64 iterations: left alone */
		s += x[i + k] * 1e-3f;
	for (int k = 0; k < n % 8; k++)      /* run-time bound: left alone */
		s += 1.0f;
#pragma unroll 2
	for (int k = 0; k < 6; k++)          /* has a pragma already */
		s -= x[i + k];
	for (int k = 0; k < 8; k++) {        /* index changed in the body: left alone */
		s += x[i + k];
		k += 1;
	}
	out[i] = s;
}
