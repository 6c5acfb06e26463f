#pragma astra launch(grid=(rows + 7) / 8, block=256)
__global__ void rowsum(float *out, const float *x, int rows, int cols)
{
	int r = blockIdx.x * 8 + threadIdx.x / 32;
	if (r >= rows)
		return;
	float s = 0;
	for (int j = threadIdx.x % 32; j < cols; j += 32)
		s += x[r * cols + j];
	for (int o = 16; o; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if (threadIdx.x % 32 == 0)
		out[r] = s;
}
