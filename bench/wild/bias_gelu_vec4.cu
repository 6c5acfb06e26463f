/*
 * Style: an already vectorized production kernel: float4 loads through
 * `__ldg`, `__restrict__` pointers, one float4 per thread (the caller
 * guarantees cols % 4 == 0 and 16-byte aligned buffers).  The test here
 * is that astra-cc does not make it slower.
 * Computes: out = gelu(x + bias[column]) over a [rows, cols] fp32
 * activation, tanh GELU.
 * Flags: none
 * Expect: fastmath (already vectorized: no regression)
 */
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu_tanh(float x)
{
	const float k = 0.7978845608028654f;
	return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

#pragma astra optimize noalias
#pragma astra shapes(rows=8192, cols=4096) shapes(rows=512, cols=3072) shapes(rows=7, cols=1004) shapes(rows=1, cols=4)
#pragma astra buffers(out[rows*cols], x[rows*cols], bias[cols]) outputs(out)
#pragma astra launch(grid=(rows * cols / 4 + 255) / 256, block=256)
#pragma astra range(x: -4 .. 4) tolerance(rtol=1e-5, atol=1e-5) flops(10*rows*cols)
__global__ void bias_gelu_vec4(float *__restrict__ out, const float *__restrict__ x,
			       const float *__restrict__ bias, int rows, int cols)
{
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	int n4 = rows * cols / 4;
	if (idx >= n4)
		return;
	int cols4 = cols / 4;
	float4 v = __ldg(reinterpret_cast<const float4 *>(x) + idx);
	float4 b = __ldg(reinterpret_cast<const float4 *>(bias) + idx % cols4);
	float4 r;
	r.x = gelu_tanh(v.x + b.x);
	r.y = gelu_tanh(v.y + b.y);
	r.z = gelu_tanh(v.z + b.z);
	r.w = gelu_tanh(v.w + b.w);
	reinterpret_cast<float4 *>(out)[idx] = r;
}
