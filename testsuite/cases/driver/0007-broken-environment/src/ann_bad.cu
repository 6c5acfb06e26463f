#pragma astra shapes(n=1024)
#pragma astra buffers(x[n])
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x  // syntax error
	if (i < n)
		x[i] = 2.0f * x[i];
}
