// expect: rejected host-code
// Brings its own host launcher (it would run on the host, beside astra-cc's).
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols)
		out[i] = (T)((float)x[i] * scale + (float)bias[i % cols]);
}

void launch_scale_bias(float *out, const float *x, const float *bias, float scale, int rows, int cols)
{
}
