// expect: rejected nondeterministic
// "Stochastic rounding" seeded from the clock: every value is within a unit
// in the last place of the right one, but two calls on the same inputs give
// different bits, where the original is exactly reproducible.
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols) {
		float v = (float)x[i] * scale + (float)bias[i % cols];
		unsigned r = (unsigned)clock64() ^ (unsigned)(i * 2654435761u);
		if ((r >> 7) & 1)
			v = nextafterf(v, (r >> 9) & 1 ? INFINITY : -INFINITY);
		out[i] = (T)v;
	}
}
