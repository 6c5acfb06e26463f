/*
 * Style: the activation as a function-pointer template parameter
 * (`template <float (*Activation)(const float &)>`), one kernel
 * instantiated per activation, and a `ceil_div` helper of the file in the
 * launch expression.
 * Computes: a gated linear unit, out = Activation(gate) * up, for SiLU
 * (SwiGLU) and exact-erf GELU (GeGLU), fp32.
 * Flags: none
 * Expect: elems-per-thread
 */
#include <cuda_runtime.h>

__device__ float silu_fn(const float &x)
{
	return x / (1.0f + expf(-x));
}

__device__ float gelu_fn(const float &x)
{
	return 0.5f * x * (1.0f + erff(x * 0.7071067811865475f));
}

__host__ __device__ inline int ceil_div(int a, int b)
{
	return (a + b - 1) / b;
}

#pragma astra optimize noalias
#pragma astra shapes(n=33554432) shapes(n=1048576) shapes(n=14337) shapes(n=1)
#pragma astra buffers(out[n], gate[n], up[n]) outputs(out)
#pragma astra launch(grid=ceil_div(n, 256), block=256)
#pragma astra types(Activation=silu_fn) types(Activation=gelu_fn)
#pragma astra range(gate: -8 .. 8) tolerance(rtol=1e-5, atol=1e-5) flops(6*n)
template <float (*Activation)(const float &)>
__global__ void glu_fnptr(float *out, const float *gate, const float *up, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	out[i] = Activation(gate[i]) * up[i];
}
