#pragma once
#pragma astra shapes(n=1024) buffers(p[n]) outputs(p) launch(grid=n / WIDTH, block=WIDTH)
__global__ void shared_kernel(float *p, int n)
{
	int i = blockIdx.x * WIDTH + threadIdx.x;
	if (i < n)
		p[i] *= 2;
}
