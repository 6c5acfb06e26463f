#pragma once
namespace ops {
#pragma astra shapes(n=1 << 16) buffers(p[n]) outputs(p) launch(grid=n / 256, block=256)
__global__ void scale2(float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) p[i] *= 2;
}
}
