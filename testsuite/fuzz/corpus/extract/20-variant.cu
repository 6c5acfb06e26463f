#pragma astra launch(grid=(n + 255) / 256, block=256)
template <typename T>
__global__ void k(T *y, const T *x, int n)
{
#pragma unroll
	for (int i = 0; i < 4; i++) y[i] = x[i];
}
