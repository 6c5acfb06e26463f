// expect: rejected mismatch
// Exponentials in half precision (hexp) to "use the faster units": values
// off by up to a part in a thousand, far outside the fp32 tolerance.
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
		s += __half2float(hexp(__float2half(xr[c] - m)));
	for (int c = 0; c < cols; c++)
		o[c] = __half2float(hexp(__float2half(xr[c] - m))) / s;
}
