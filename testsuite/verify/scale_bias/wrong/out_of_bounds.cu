// expect: rejected out-of-bounds
// Four elements per thread and no check on the last group: when rows*cols
// is not a multiple of 4 the last thread writes past the end of out.
#pragma astra launch(grid=(rows*cols + 1023) / 1024, block=256)
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	int n = rows * cols;
	int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
	if (i >= n)
		return;
#pragma unroll
	for (int k = i; k < i + 4; k++)
		out[k] = (T)((float)x[k < n ? k : n - 1] * scale + (float)bias[k % cols]);
}
