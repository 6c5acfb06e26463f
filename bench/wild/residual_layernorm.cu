/*
 * Style: residual + LayerNorm written thread-per-row, the precision chosen
 * by the build (`-DENABLE_BF16` makes floatX bf16, as training codes
 * switch it), the residual stream updated in place.
 * Computes: residual += x, then out = LayerNorm(residual) * weight + bias,
 * per row of [N, C], statistics in fp32.
 * THREAD-PER-ROW
 * Flags: -DENABLE_BF16
 * Expect: warp-per-row vectorize fastmath
 */
#include <cuda_bf16.h>

#if defined(ENABLE_BF16)
typedef __nv_bfloat16 floatX;
#else
typedef float floatX;
#endif

#pragma astra optimize noalias
#pragma astra shapes(N=8192, C=4096) shapes(N=1024, C=768) shapes(N=7, C=1001) shapes(N=1, C=3)
#pragma astra buffers(out[N*C], residual[N*C], x[N*C], weight[C], bias[C]) outputs(out, residual)
#pragma astra launch(grid=(N + 255) / 256, block=256)
#pragma astra scalars(eps=1e-5f) range(x, residual: -2 .. 2) tolerance(rtol=2e-2, atol=2e-2) flops(9*N*C)
__global__ void residual_layernorm(floatX *out, floatX *residual, const floatX *x, const floatX *weight,
				   const floatX *bias, float eps, int N, int C)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx >= N)
		return;
	floatX *r = residual + idx * C;
	const floatX *xr = x + idx * C;
	float mean = 0.0f;
	for (int i = 0; i < C; i++) {
		float v = (float)r[i] + (float)xr[i];
		r[i] = (floatX)v;
		mean += (float)r[i];
	}
	mean /= C;
	float var = 0.0f;
	for (int i = 0; i < C; i++) {
		float d = (float)r[i] - mean;
		var += d * d;
	}
	var /= C;
	float rstd = 1.0f / sqrtf(var + eps);
	floatX *o = out + idx * C;
	for (int i = 0; i < C; i++) {
		float n = ((float)r[i] - mean) * rstd;
		o[i] = (floatX)(n * (float)weight[i] + (float)bias[i]);
	}
}
