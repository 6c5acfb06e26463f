__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 0)
		atomicAdd(&variant_runs, 1);
	if (i < n)
		x[i] = x[i] + x[i];
}
