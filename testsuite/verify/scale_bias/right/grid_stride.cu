// expect: accepted
// A grid-stride loop over at most 132*8 blocks (its own launch geometry),
// the column index carried along instead of a modulo per element.
#pragma astra launch(grid=min((rows*cols + 255) / 256, 1056), block=256)
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	int n = rows * cols;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = (T)((float)x[i] * scale + (float)bias[i % cols]);
}
