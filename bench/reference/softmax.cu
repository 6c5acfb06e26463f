/*
 * softmax, hand-optimized: a block of 256 threads per row instead of a
 * thread per row.  One pass over the row (128-bit loads when cols is a
 * multiple of 4 and the pointers are 16-byte aligned) keeps a running
 * (max, sum) per thread, rescaling the sum when the max grows ("online
 * softmax"); the pairs are merged with warp shuffles and one shared pair
 * per warp.  The second pass re-reads the row from L1/L2 and writes
 * __expf(x - max) * (1 / sum) with 128-bit stores: two row reads instead
 * of three, and no IEEE division per element.
 */
__device__ __forceinline__ void softmax_merge(float &m, float &s, float om, float os)
{
	float nm = fmaxf(m, om);
	if (nm == -INFINITY)
		return; /* both sides empty */
	s = s * __expf(m - nm) + os * __expf(om - nm);
	m = nm;
}

__device__ __forceinline__ void softmax_add(float &m, float &s, float v)
{
	if (v > m) {
		s = s * __expf(m - v) + 1.0f;
		m = v;
	} else {
		s += __expf(v - m);
	}
}

#pragma astra launch(grid=rows, block=256)
__global__ void softmax(float *out, const float *x, int rows, int cols)
{
	__shared__ float warp_m[32], warp_s[32];
	const float *xr = x + (size_t)blockIdx.x * cols;
	float *outr = out + (size_t)blockIdx.x * cols;
	bool vec = cols % 4 == 0 && (((size_t)x | (size_t)out) & 15) == 0;

	float m = -INFINITY, s = 0.0f;
	if (vec) {
		for (int i = threadIdx.x * 4; i < cols; i += blockDim.x * 4) {
			float4 v = *reinterpret_cast<const float4 *>(xr + i);
			softmax_add(m, s, v.x);
			softmax_add(m, s, v.y);
			softmax_add(m, s, v.z);
			softmax_add(m, s, v.w);
		}
	} else {
		for (int i = threadIdx.x; i < cols; i += blockDim.x)
			softmax_add(m, s, xr[i]);
	}
	for (int o = 16; o > 0; o >>= 1)
		softmax_merge(m, s, __shfl_xor_sync(0xffffffffu, m, o),
			      __shfl_xor_sync(0xffffffffu, s, o));
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0) {
		warp_m[warp] = m;
		warp_s[warp] = s;
	}
	__syncthreads();
	bool have = lane < (int)(blockDim.x >> 5);
	m = have ? warp_m[lane] : -INFINITY;
	s = have ? warp_s[lane] : 0.0f;
	for (int o = 16; o > 0; o >>= 1)
		softmax_merge(m, s, __shfl_xor_sync(0xffffffffu, m, o),
			      __shfl_xor_sync(0xffffffffu, s, o));
	float inv = 1.0f / s;

	if (vec) {
		for (int i = threadIdx.x * 4; i < cols; i += blockDim.x * 4) {
			float4 v = *reinterpret_cast<const float4 *>(xr + i);
			v.x = __expf(v.x - m) * inv;
			v.y = __expf(v.y - m) * inv;
			v.z = __expf(v.z - m) * inv;
			v.w = __expf(v.w - m) * inv;
			*reinterpret_cast<float4 *>(outr + i) = v;
		}
	} else {
		for (int i = threadIdx.x; i < cols; i += blockDim.x)
			outr[i] = __expf(xr[i] - m) * inv;
	}
}
