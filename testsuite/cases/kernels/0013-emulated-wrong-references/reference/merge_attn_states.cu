/* Wrong: a grid capped at 1056 blocks as for a grid-stride loop, but the
 * original's body without the loop: right as long as the grid covers every
 * element (up to 270,336 of them), wrong beyond. */
#include <cuda_fp16.h>
#include <math.h>

#pragma astra launch(grid=min((num_tokens*num_heads*head_size + 255)/256, 1056), block=256)
template <typename T>
__global__ void merge_attn_states(T *output, float *output_lse, const T *prefix_output,
				  const float *prefix_lse, const T *suffix_output,
				  const float *suffix_lse, int num_tokens, int num_heads,
				  int head_size)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= num_tokens * num_heads * head_size)
		return;
	int token = i / (num_heads * head_size);
	int head = (i / head_size) % num_heads;
	int d = i % head_size;

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

	output[i] = (T)((float)prefix_output[i] * p_scale + (float)suffix_output[i] * s_scale);
	if (d == 0)
		output_lse[head * num_tokens + token] = logf(out_se) + m;
}
