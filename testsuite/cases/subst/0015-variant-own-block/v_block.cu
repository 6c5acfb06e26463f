#pragma astra launch(grid=(n + 255) / 256, block=128)
__global__ void scale(float *x, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		x[i] = x[i] * 2.0f;
}
