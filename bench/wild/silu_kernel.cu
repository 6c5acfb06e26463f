/*
 * Style: `__device__` helpers for the index and for the math (the expf
 * is inside `silu`, not in the kernel's body), a template element type.
 * Computes: SiLU (x * sigmoid(x)) of every element, fp16 or fp32.
 * Flags: none
 * Expect: elems-per-thread fastmath
 */
#include <cuda_fp16.h>

__device__ __forceinline__ int global_thread_id()
{
	return blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ float silu(float x)
{
	return x / (1.0f + expf(-x));
}

#pragma astra optimize noalias
#pragma astra shapes(n=33554432) shapes(n=2097152) shapes(n=14336) shapes(n=1001) shapes(n=1)
#pragma astra buffers(y[n], x[n]) outputs(y)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra types(T=__half) types(T=float)
#pragma astra range(x: -8 .. 8) tolerance(rtol=1e-2, atol=1e-3) flops(4*n)
template <typename T>
__global__ void silu_kernel(T *y, const T *x, int n)
{
	int i = global_thread_id();
	if (i >= n)
		return;
	y[i] = (T)silu((float)x[i]);
}
