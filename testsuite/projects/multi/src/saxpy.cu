#include "vecops.cuh"

#pragma astra shapes(n=1048576) shapes(n=1000)
#pragma astra buffers(x[n], y[n])
#pragma astra outputs(y)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void saxpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = axpy(a, x[i], y[i]);
	if (i == 0)
		atomicAdd(&g_launches, 1ull);
}

void launch_saxpy(float a, const float *x, float *y, int n)
{
	saxpy<<<(n + 255) / 256, 256>>>(a, x, y, n);
}
