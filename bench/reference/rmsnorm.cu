/*
 * rmsnorm, hand-optimized: a block of 256 threads per row instead of a
 * thread per row, so every load is coalesced; 128-bit loads and stores
 * (4 fp32 or 8 bf16 per access) when cols is a multiple of the vector
 * width and the pointers are 16-byte aligned, scalar strided accesses
 * otherwise; the sum of squares reduced with warp shuffles and one shared
 * word per warp; rsqrtf.  The second pass re-reads the row, which the
 * first pass just brought into L1/L2.
 */
__device__ __forceinline__ float rmsnorm_block_sum(float v)
{
	__shared__ float warp_sums[32];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		warp_sums[warp] = v;
	__syncthreads();
	v = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

#pragma astra launch(grid=rows, block=256)
template <typename T>
__global__ void rmsnorm(T *out, const T *x, const T *w, float eps, int rows, int cols)
{
	constexpr int V = 16 / sizeof(T);
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *outr = out + (size_t)blockIdx.x * cols;
	bool vec = cols % V == 0 && (((size_t)x | (size_t)out | (size_t)w) & 15) == 0;

	float sumsq = 0.0f;
	if (vec) {
		for (int i = threadIdx.x * V; i < cols; i += blockDim.x * V) {
			alignas(16) T a[V];
			*reinterpret_cast<uint4 *>(a) = *reinterpret_cast<const uint4 *>(xr + i);
#pragma unroll
			for (int k = 0; k < V; k++)
				sumsq += (float)a[k] * (float)a[k];
		}
	} else {
		for (int i = threadIdx.x; i < cols; i += blockDim.x)
			sumsq += (float)xr[i] * (float)xr[i];
	}
	float inv = rsqrtf(rmsnorm_block_sum(sumsq) / cols + eps);

	if (vec) {
		for (int i = threadIdx.x * V; i < cols; i += blockDim.x * V) {
			alignas(16) T a[V], b[V];
			*reinterpret_cast<uint4 *>(a) = *reinterpret_cast<const uint4 *>(xr + i);
			*reinterpret_cast<uint4 *>(b) = *reinterpret_cast<const uint4 *>(w + i);
#pragma unroll
			for (int k = 0; k < V; k++)
				a[k] = (T)((float)a[k] * inv * (float)b[k]);
			*reinterpret_cast<uint4 *>(outr + i) = *reinterpret_cast<uint4 *>(a);
		}
	} else {
		for (int i = threadIdx.x; i < cols; i += blockDim.x)
			outr[i] = (T)((float)xr[i] * inv * (float)w[i]);
	}
}
