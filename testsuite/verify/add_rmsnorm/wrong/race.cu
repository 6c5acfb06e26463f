// expect: rejected racecheck|nondeterministic|mismatch
// A shared-memory race: the barrier moved to the top of the reduction loop,
// so nothing orders the last step's write of partial[0] before the other
// warps read it.  Depending on timing the result is right, wrong, or
// different from run to run; compute-sanitizer's racecheck sees it always.
template <typename T>
__global__ void add_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps, int rows, int cols)
{
	__shared__ float partial[256];
	T *res = residual + (size_t)blockIdx.x * cols;
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *o = out + (size_t)blockIdx.x * cols;

	float sumsq = 0.0f;
	for (int i = threadIdx.x; i < cols; i += blockDim.x) {
		T s = (T)((float)xr[i] + (float)res[i]);
		res[i] = s;
		sumsq += (float)s * (float)s;
	}
	partial[threadIdx.x] = sumsq;
	for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
		__syncthreads();
		if (threadIdx.x < stride)
			partial[threadIdx.x] += partial[threadIdx.x + stride];
	}
	float inv = rsqrtf(partial[0] / cols + eps);
	for (int i = threadIdx.x; i < cols; i += blockDim.x)
		o[i] = (T)((float)res[i] * inv * (float)w[i]);
}
