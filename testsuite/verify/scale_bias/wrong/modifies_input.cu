// expect: rejected input-modified
// Uses the input as scratch space (casting const away): the caller's x is
// not the same after the call.
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols) {
		T *scratch = const_cast<T *>(x);
		scratch[i] = (T)((float)x[i] * scale);
		out[i] = (T)((float)scratch[i] + (float)bias[i % cols]);
	}
}
