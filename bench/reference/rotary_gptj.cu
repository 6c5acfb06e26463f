/*
 * rotary_gptj, hand-optimized: each thread owns 8 consecutive elements
 * (4 interleaved pairs) of one head, moved with one 128-bit load and
 * store, with the matching 4 cosines and 4 sines in two 64-bit loads; the
 * position is read once per 4 pairs.  head_size not a multiple of 8, or
 * misaligned pointers, take the same chunks with scalar accesses.
 */
#pragma astra launch(grid=(num_tokens * (num_heads + num_kv_heads) * ((head_size / 2 + 3) / 4) + 255) / 256, block=256)
template <typename T>
__global__ void rotary_gptj(const int64_t *positions, T *query, T *key,
			    const T *cos_sin_cache, int num_tokens, int num_heads,
			    int num_kv_heads, int head_size)
{
	int half = head_size / 2;
	int heads = num_heads + num_kv_heads;
	int chunks = (half + 3) / 4;
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= num_tokens * heads * chunks)
		return;
	int th = c / chunks; /* token * heads + head */
	int token = th / heads;
	int head = th % heads;
	int r0 = c % chunks * 4; /* first pair of this chunk */

	T *v = head < num_heads ? query + ((size_t)token * num_heads + head) * head_size
				: key + ((size_t)token * num_kv_heads + head - num_heads) * head_size;
	const T *cache = cos_sin_cache + positions[token] * head_size;
	bool vec = sizeof(T) == 2 && head_size % 8 == 0 &&
		   (((size_t)query | (size_t)key) & 15) == 0 && ((size_t)cos_sin_cache & 7) == 0;
	if (vec) {
		alignas(16) T e[8];
		alignas(8) T cs[4], sn[4];
		*reinterpret_cast<uint4 *>(e) = *reinterpret_cast<const uint4 *>(v + 2 * r0);
		*reinterpret_cast<uint2 *>(cs) = *reinterpret_cast<const uint2 *>(cache + r0);
		*reinterpret_cast<uint2 *>(sn) = *reinterpret_cast<const uint2 *>(cache + half + r0);
#pragma unroll
		for (int k = 0; k < 4; k++) {
			float xf = (float)e[2 * k], yf = (float)e[2 * k + 1];
			float cf = (float)cs[k], sf = (float)sn[k];
			e[2 * k] = (T)(xf * cf - yf * sf);
			e[2 * k + 1] = (T)(yf * cf + xf * sf);
		}
		*reinterpret_cast<uint4 *>(v + 2 * r0) = *reinterpret_cast<uint4 *>(e);
	} else {
		int end = min(r0 + 4, half);
		for (int r = r0; r < end; r++) {
			float cf = (float)cache[r], sf = (float)cache[half + r];
			float xf = (float)v[2 * r], yf = (float)v[2 * r + 1];
			v[2 * r] = (T)(xf * cf - yf * sf);
			v[2 * r + 1] = (T)(yf * cf + xf * sf);
		}
	}
}
