#pragma once
#include "detail.cuh"
static const char *kern_file = __FILE__;

#pragma astra optimize
#pragma astra shapes(n=1000) buffers(y[n], x[n]) outputs(y) types(T=float)
#pragma astra launch(grid=(n + 127) / 128, block=128)
template <typename T>
__global__ void axpy(T *y, const T *x, T a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = mul_add(a, x[i], y[i]);
}
