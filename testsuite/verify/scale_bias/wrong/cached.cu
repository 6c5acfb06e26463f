// expect: rejected state
// Remembers the last input pointer and skips the work when it sees it again
// (the "caches results between calls" cheat): keeps state in a global.
__device__ const void *scale_bias_last_x;

template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	if (scale_bias_last_x == x)
		return;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols)
		out[i] = (T)((float)x[i] * scale + (float)bias[i % cols]);
	if (i == 0)
		scale_bias_last_x = x;
}
