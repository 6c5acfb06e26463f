/*
 * rotary_neox, hand-optimized: each thread owns 8 consecutive rotated
 * pairs of one head (x[r..r+7] with x[half+r..half+r+7]) and moves them
 * with 128-bit loads and stores, and loads the matching 8 cosines and 8
 * sines with two 128-bit loads; the position is read once per 8 pairs.
 * head_size/2 not a multiple of 8, or misaligned pointers, take the same
 * chunks with scalar accesses.
 */
#pragma astra launch(grid=(num_tokens * (num_heads + num_kv_heads) * ((head_size / 2 + 7) / 8) + 255) / 256, block=256)
template <typename T>
__global__ void rotary_neox(const int64_t *positions, T *query, T *key,
			    const T *cos_sin_cache, int num_tokens, int num_heads,
			    int num_kv_heads, int head_size)
{
	int half = head_size / 2;
	int heads = num_heads + num_kv_heads;
	int chunks = (half + 7) / 8;
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= num_tokens * heads * chunks)
		return;
	int th = c / chunks; /* token * heads + head */
	int token = th / heads;
	int head = th % heads;
	int r0 = c % chunks * 8;

	T *v = head < num_heads ? query + ((size_t)token * num_heads + head) * head_size
				: key + ((size_t)token * num_kv_heads + head - num_heads) * head_size;
	const T *cache = cos_sin_cache + positions[token] * head_size;
	bool vec = sizeof(T) == 2 && half % 8 == 0 &&
		   (((size_t)query | (size_t)key | (size_t)cos_sin_cache) & 15) == 0;
	if (vec) {
		alignas(16) T cs[8], sn[8], x[8], y[8];
		*reinterpret_cast<uint4 *>(cs) = *reinterpret_cast<const uint4 *>(cache + r0);
		*reinterpret_cast<uint4 *>(sn) = *reinterpret_cast<const uint4 *>(cache + half + r0);
		*reinterpret_cast<uint4 *>(x) = *reinterpret_cast<const uint4 *>(v + r0);
		*reinterpret_cast<uint4 *>(y) = *reinterpret_cast<const uint4 *>(v + half + r0);
#pragma unroll
		for (int k = 0; k < 8; k++) {
			float xf = (float)x[k], yf = (float)y[k];
			float cf = (float)cs[k], sf = (float)sn[k];
			x[k] = (T)(xf * cf - yf * sf);
			y[k] = (T)(yf * cf + xf * sf);
		}
		*reinterpret_cast<uint4 *>(v + r0) = *reinterpret_cast<uint4 *>(x);
		*reinterpret_cast<uint4 *>(v + half + r0) = *reinterpret_cast<uint4 *>(y);
	} else {
		int end = min(r0 + 8, half);
		for (int r = r0; r < end; r++) {
			float cf = (float)cache[r], sf = (float)cache[half + r];
			float xf = (float)v[r], yf = (float)v[half + r];
			v[r] = (T)(xf * cf - yf * sf);
			v[half + r] = (T)(yf * cf + xf * sf);
		}
	}
}
