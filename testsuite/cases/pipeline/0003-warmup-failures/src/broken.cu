#pragma astra shapes(n=1024)
#pragma astra buffers(x[n])
#pragma astra outputs(x)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void broken(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = undefined_function(x[i]);
}
