#pragma astra shapes(n=1048576) shapes(n=1000)
#pragma astra buffers(x[n], y[n])
#pragma astra outputs(y)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void axpy(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i] + y[i];
}
