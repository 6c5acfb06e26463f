// expect: accepted
// The same walk with the fast exponential (__expf): a few units in the last
// place, inside the fp32 tolerance for arguments in [-16, 0].
__global__ void row_softmax(float *out, const float *x, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + (size_t)r * cols;
	float *o = out + (size_t)r * cols;
	float m = -INFINITY;
	for (int c = 0; c < cols; c++)
		m = fmaxf(m, xr[c]);
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += __expf(xr[c] - m);
	float inv = 1.0f / s;
	for (int c = 0; c < cols; c++)
		o[c] = __expf(xr[c] - m) * inv;
}
