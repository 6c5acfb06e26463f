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

void run(float *x, int n)
{
	scale<<<(n + 255) / 256, 256>>>(x, n);
}
