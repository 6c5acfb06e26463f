#pragma astra optimize
#pragma astra shapes(n=4096) shapes(n=7)
#pragma astra buffers(y[n], x[n])
#pragma astra outputs(y)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void scale(float *y, const float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i];
}
