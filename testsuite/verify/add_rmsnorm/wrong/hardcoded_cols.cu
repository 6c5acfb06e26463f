// expect: rejected unwritten
// Hard-codes the hidden size of the first test shape (4096): right for
// case 0 (cols=4096), wrong for every other shape; with cols=5120 the last
// 1024 values of each row are never written.
template <typename T>
__global__ void add_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps, int rows, int cols)
{
	constexpr int kCols = 4096;
	__shared__ float warp_sums[8];
	T *res = residual + (size_t)blockIdx.x * kCols;
	const T *xr = x + (size_t)blockIdx.x * kCols;
	T *o = out + (size_t)blockIdx.x * kCols;

	float sumsq = 0.0f;
#pragma unroll 4
	for (int i = threadIdx.x; i < kCols; i += 256) {
		T s = (T)((float)xr[i] + (float)res[i]);
		res[i] = s;
		sumsq += (float)s * (float)s;
	}
	for (int off = 16; off > 0; off >>= 1)
		sumsq += __shfl_xor_sync(0xffffffffu, sumsq, off);
	if ((threadIdx.x & 31) == 0)
		warp_sums[threadIdx.x >> 5] = sumsq;
	__syncthreads();
	float total = 0.0f;
	for (int k = 0; k < 8; k++)
		total += warp_sums[k];
	float inv = rsqrtf(total / kCols + eps);
#pragma unroll 4
	for (int i = threadIdx.x; i < kCols; i += 256)
		o[i] = (T)((float)res[i] * inv * (float)w[i]);
}
