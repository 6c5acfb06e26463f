#pragma astra launch(grid=(n + 1023) / 1024, block=256)
__global__ void scale(float *x, int n)
{
	int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
	for (int j = i; j < i + 4 && j < n; j++)
		x[j] = twice(x[j]);
}
