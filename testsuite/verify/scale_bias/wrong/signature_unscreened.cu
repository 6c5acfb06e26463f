// expect: rejected signature
// options: --no-screen
// The same signature change as signature.cu, judged without the static
// gates: the compiler's check in the test program (a static_assert that
// the candidate's type equals the original's) rejects it.
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, __half scale, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols)
		out[i] = (T)((float)x[i] * __half2float(scale) + (float)bias[i % cols]);
}
