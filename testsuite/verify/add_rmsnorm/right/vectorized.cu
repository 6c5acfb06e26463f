// expect: accepted
// 128-bit loads and stores when the row and every pointer allow them
// (cols a multiple of the vector width, 16-byte aligned rows), the scalar
// loop otherwise; warp-shuffle reduction.
__device__ __forceinline__ float add_rmsnorm_block_sum(float v)
{
	__shared__ float sums[8];
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	if ((threadIdx.x & 31) == 0)
		sums[threadIdx.x >> 5] = v;
	__syncthreads();
	float t = 0.0f;
#pragma unroll
	for (int k = 0; k < 8; k++)
		t += sums[k];
	return t;
}

template <typename T>
__global__ void add_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps, int rows, int cols)
{
	constexpr int V = 16 / sizeof(T);
	T *res = residual + (size_t)blockIdx.x * cols;
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *o = out + (size_t)blockIdx.x * cols;
	bool vec = cols % V == 0 && (((size_t)res | (size_t)xr | (size_t)o | (size_t)w) & 15) == 0;

	float sumsq = 0.0f;
	if (vec) {
		for (int i = threadIdx.x * V; i < cols; i += blockDim.x * V) {
			alignas(16) T a[V], r[V];
			*reinterpret_cast<uint4 *>(a) = *reinterpret_cast<const uint4 *>(xr + i);
			*reinterpret_cast<uint4 *>(r) = *reinterpret_cast<const uint4 *>(res + i);
#pragma unroll
			for (int k = 0; k < V; k++) {
				r[k] = (T)((float)a[k] + (float)r[k]);
				sumsq += (float)r[k] * (float)r[k];
			}
			*reinterpret_cast<uint4 *>(res + i) = *reinterpret_cast<uint4 *>(r);
		}
	} else {
		for (int i = threadIdx.x; i < cols; i += blockDim.x) {
			T s = (T)((float)xr[i] + (float)res[i]);
			res[i] = s;
			sumsq += (float)s * (float)s;
		}
	}
	float inv = rsqrtf(add_rmsnorm_block_sum(sumsq) / cols + eps);
	if (vec) {
		for (int i = threadIdx.x * V; i < cols; i += blockDim.x * V) {
			alignas(16) T r[V], g[V];
			*reinterpret_cast<uint4 *>(r) = *reinterpret_cast<const uint4 *>(res + i);
			*reinterpret_cast<uint4 *>(g) = *reinterpret_cast<const uint4 *>(w + i);
#pragma unroll
			for (int k = 0; k < V; k++)
				r[k] = (T)((float)r[k] * inv * (float)g[k]);
			*reinterpret_cast<uint4 *>(o + i) = *reinterpret_cast<uint4 *>(r);
		}
	} else {
		for (int i = threadIdx.x; i < cols; i += blockDim.x)
			o[i] = (T)((float)res[i] * inv * (float)w[i]);
	}
}
