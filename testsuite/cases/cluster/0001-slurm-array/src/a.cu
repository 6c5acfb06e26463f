#pragma astra shapes(n=1048576) shapes(n=1000)
#pragma astra buffers(x[n])
#pragma astra outputs(x)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = 2.0f * x[i];
}

#pragma astra shapes(n=1048576) shapes(n=1000)
#pragma astra buffers(y[n])
#pragma astra outputs(y)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void triple(float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 3.0f * y[i];
}

void run(float *x, float *y, int n)
{
	scale<<<(n + 255) / 256, 256>>>(x, n);
	triple<<<(n + 255) / 256, 256>>>(y, n);
}
