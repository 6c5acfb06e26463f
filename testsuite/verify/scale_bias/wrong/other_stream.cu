// expect: rejected stream
// Hands the work to a child kernel on a fire-and-forget stream, so the
// caller's stream (and timing) never waits for it.
template <typename T>
__global__ void scale_bias_child(T *out, const T *x, const T *bias, float scale, int n, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = (T)((float)x[i] * scale + (float)bias[i % cols]);
}

template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		scale_bias_child<<<(rows * cols + 255) / 256, 256, 0, cudaStreamFireAndForget>>>(out, x, bias, scale,
												   rows * cols, cols);
}
