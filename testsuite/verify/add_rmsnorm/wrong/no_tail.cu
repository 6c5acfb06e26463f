// expect: rejected unwritten
// Vectorized, but the loops stop at the last whole vector: when cols is not
// a multiple of the vector width the last elements of each row are never
// written (and left out of the sum).
template <typename T>
__global__ void add_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps, int rows, int cols)
{
	constexpr int V = 16 / sizeof(T);
	__shared__ float partial[256];
	T *res = residual + (size_t)blockIdx.x * cols;
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *o = out + (size_t)blockIdx.x * cols;

	float sumsq = 0.0f;
	for (int i = threadIdx.x * V; i + V <= cols; i += blockDim.x * V) {
#pragma unroll
		for (int k = 0; k < V; k++) {
			T s = (T)((float)xr[i + k] + (float)res[i + k]);
			res[i + k] = s;
			sumsq += (float)s * (float)s;
		}
	}
	partial[threadIdx.x] = sumsq;
	__syncthreads();
	for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
		if (threadIdx.x < stride)
			partial[threadIdx.x] += partial[threadIdx.x + stride];
		__syncthreads();
	}
	float inv = rsqrtf(partial[0] / cols + eps);
	for (int i = threadIdx.x * V; i + V <= cols; i += blockDim.x * V)
#pragma unroll
		for (int k = 0; k < V; k++)
			o[i + k] = (T)((float)res[i + k] * inv * (float)w[i + k]);
}
