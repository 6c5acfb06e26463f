#pragma astra optimize
#pragma astra shapes(n=1000) shapes(n=7) buffers(x[n]) outputs(x)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * 2.0f;
}

void run(float *x, int n)
{
	scale<<<(n + 255) / 256, 256>>>(x, n);
}
