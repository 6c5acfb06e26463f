#include "factor.h"
#pragma astra shapes(n=4096) shapes(n=1000)
#pragma astra buffers(x[n], y[n])
#pragma astra outputs(y)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void axpy(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = FACTOR * x[i] + y[i];
}
