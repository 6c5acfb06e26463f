// expect: rejected signature
// Changes the signature: scale as half, which the callers do not pass.
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, __half scale, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols)
		out[i] = (T)((float)x[i] * __half2float(scale) + (float)bias[i % cols]);
}
