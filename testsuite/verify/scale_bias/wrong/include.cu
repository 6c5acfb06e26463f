// expect: rejected preprocessor
// Includes a header: a variant sees exactly what the original sees.
#include <cstdio>
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols)
		out[i] = (T)((float)x[i] * scale + (float)bias[i % cols]);
}
