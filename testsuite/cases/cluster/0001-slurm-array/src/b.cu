#pragma astra shapes(n=1048576 a=2) shapes(n=1000 a=0.5)
#pragma astra buffers(x[n], y[n])
#pragma astra outputs(y)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void axpy(const float *x, float *y, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

#pragma astra shapes(n=1048576) shapes(n=1000)
#pragma astra buffers(x[n])
#pragma astra outputs(x)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void negate(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = -x[i];
}

void run(const float *x, float *y, int n)
{
	axpy<<<(n + 255) / 256, 256>>>(x, y, 2.0f, n);
	negate<<<(n + 255) / 256, 256>>>(y, n);
}
