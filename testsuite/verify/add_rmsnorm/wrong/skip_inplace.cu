// expect: rejected unwritten
// The Astra paper's own rmsnorm mistake: the residual sum is used but never
// stored back, so the in-place output `residual` keeps its old values.
template <typename T>
__global__ void add_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps, int rows, int cols)
{
	__shared__ float warp_sums[8];
	const T *res = residual + (size_t)blockIdx.x * cols;
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *o = out + (size_t)blockIdx.x * cols;

	float sumsq = 0.0f;
	for (int i = threadIdx.x; i < cols; i += blockDim.x) {
		float s = (float)(T)((float)xr[i] + (float)res[i]);
		sumsq += s * s;
	}
	for (int off = 16; off > 0; off >>= 1)
		sumsq += __shfl_xor_sync(0xffffffffu, sumsq, off);
	if ((threadIdx.x & 31) == 0)
		warp_sums[threadIdx.x >> 5] = sumsq;
	__syncthreads();
	float total = 0.0f;
	for (int k = 0; k < 8; k++)
		total += warp_sums[k];
	float inv = rsqrtf(total / cols + eps);
	for (int i = threadIdx.x; i < cols; i += blockDim.x) {
		float s = (float)(T)((float)xr[i] + (float)res[i]);
		o[i] = (T)(s * inv * (float)w[i]);
	}
}
