// The original itself: timed against itself it must never measure faster.
__global__ void copy_scale(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 2.0f * x[i];
}
