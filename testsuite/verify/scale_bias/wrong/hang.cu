// expect: rejected hang
// A grid-stride loop that forgot its increment: every thread with work
// spins forever.
#pragma astra launch(grid=min((rows*cols + 255) / 256, 1056), block=256)
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	int n = rows * cols;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	while (i < n)
		out[i] = (T)((float)x[i] * scale + (float)bias[i % cols]);
}
