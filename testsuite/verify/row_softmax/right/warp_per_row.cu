// expect: accepted
// A warp per row (eight rows per block of 256): coalesced loads, the max
// and the sum reduced with shuffles.  Its own launch geometry.
#pragma astra launch(grid=(rows + 7) / 8, block=256)
__global__ void row_softmax(float *out, const float *x, int rows, int cols)
{
	int r = blockIdx.x * 8 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
	if (r >= rows)
		return;
	const float *xr = x + (size_t)r * cols;
	float *o = out + (size_t)r * cols;
	float m = -INFINITY;
	for (int c = lane; c < cols; c += 32)
		m = fmaxf(m, xr[c]);
	for (int off = 16; off > 0; off >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
	float s = 0.0f;
	for (int c = lane; c < cols; c += 32)
		s += expf(xr[c] - m);
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	float inv = 1.0f / s;
	for (int c = lane; c < cols; c += 32)
		o[c] = expf(xr[c] - m) * inv;
}
