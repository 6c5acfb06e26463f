/*
 * merge_attn_states, hand-optimized: each thread owns 8 consecutive
 * elements of one (token, head) and computes the two scales once for them
 * (instead of once per element), then moves the values with one 128-bit
 * load from each input and one 128-bit store.  The scales keep expf and
 * IEEE division: they are computed once per 8 elements, so accuracy costs
 * nothing here.  head_size not a multiple of 8, or misaligned value
 * pointers, take the same chunks with scalar accesses.
 */
#pragma astra launch(grid=(num_tokens * num_heads * ((head_size + 7) / 8) + 255) / 256, block=256)
template <typename T>
__global__ void merge_attn_states(T *output, float *output_lse, const T *prefix_output,
				  const float *prefix_lse, const T *suffix_output,
				  const float *suffix_lse, int num_tokens, int num_heads,
				  int head_size)
{
	int chunks = (head_size + 7) / 8;
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= num_tokens * num_heads * chunks)
		return;
	int th = c / chunks; /* token * num_heads + head */
	int token = th / num_heads;
	int head = th % num_heads;
	int d0 = c % chunks * 8;

	float p_lse = prefix_lse[head * num_tokens + token];
	float s_lse = suffix_lse[head * num_tokens + token];
	p_lse = isinf(p_lse) ? -INFINITY : p_lse;
	s_lse = isinf(s_lse) ? -INFINITY : s_lse;
	float m = fmaxf(p_lse, s_lse);
	float p_se = expf(p_lse - m);
	float s_se = expf(s_lse - m);
	float out_se = p_se + s_se;
	float p_scale = p_se / out_se;
	float s_scale = s_se / out_se;

	size_t base = (size_t)th * head_size + d0;
	bool vec = sizeof(T) == 2 && head_size % 8 == 0 &&
		   (((size_t)output | (size_t)prefix_output | (size_t)suffix_output) & 15) == 0;
	if (vec) {
		alignas(16) T p[8], s[8];
		*reinterpret_cast<uint4 *>(p) = *reinterpret_cast<const uint4 *>(prefix_output + base);
		*reinterpret_cast<uint4 *>(s) = *reinterpret_cast<const uint4 *>(suffix_output + base);
#pragma unroll
		for (int k = 0; k < 8; k++)
			p[k] = (T)((float)p[k] * p_scale + (float)s[k] * s_scale);
		*reinterpret_cast<uint4 *>(output + base) = *reinterpret_cast<uint4 *>(p);
	} else {
		int n = min(8, head_size - d0);
		for (int k = 0; k < n; k++)
			output[base + k] = (T)((float)prefix_output[base + k] * p_scale +
					       (float)suffix_output[base + k] * s_scale);
	}
	if (d0 == 0)
		output_lse[head * num_tokens + token] = logf(out_se) + m;
}
