#pragma astra launch(grid=(n + 511) / 512, block=128)
template <typename T>
__global__ void axpy(T *y, const T *x, T a, int n)
{
	int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
	for (int j = i; j < i + 4 && j < n; j++)
		y[j] = mul_add(a, x[j], y[j]);
}
