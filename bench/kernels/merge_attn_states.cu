/*
 * merge_attn_states - combine two partial attention results (a prefix over
 * cached KV and a suffix over new KV, as in SGLang/vLLM cascade and chunked
 * prefill attention) using their log-sum-exps:
 *   m = max(p_lse, s_lse), p = exp(p_lse - m), s = exp(s_lse - m)
 *   output = (prefix_output * p + suffix_output * s) / (p + s)
 *   output_lse = log(p + s) + m
 * Values are [num_tokens, num_heads, head_size]; LSEs are fp32 and laid out
 * [num_heads, num_tokens].  An infinite LSE marks an empty part.
 *
 * First version: one output element per thread, scalar loads; every thread
 * recomputes its head's scales.
 */
#include <cuda_fp16.h>
#include <math.h>

#pragma astra optimize
#pragma astra shapes(num_tokens=2048, num_heads=64, head_size=128)
#pragma astra shapes(num_tokens=512, num_heads=32, head_size=128)
#pragma astra shapes(num_tokens=7, num_heads=32, head_size=128)
#pragma astra shapes(num_tokens=1, num_heads=8, head_size=64)
#pragma astra shapes(num_tokens=3, num_heads=5, head_size=36)
#pragma astra buffers(output[num_tokens*num_heads*head_size], output_lse[num_heads*num_tokens])
#pragma astra buffers(prefix_output[num_tokens*num_heads*head_size], prefix_lse[num_heads*num_tokens])
#pragma astra buffers(suffix_output[num_tokens*num_heads*head_size], suffix_lse[num_heads*num_tokens])
#pragma astra outputs(output, output_lse)
#pragma astra launch(grid=(num_tokens*num_heads*head_size + 255)/256, block=256)
#pragma astra types(T=__half)
#pragma astra range(prefix_output: -2 .. 2) range(suffix_output: -2 .. 2)
#pragma astra range(prefix_lse: -8 .. 8) range(suffix_lse: -8 .. 8)
#pragma astra tolerance(output: rtol=1e-2, atol=1e-3)
#pragma astra noalias
#pragma astra flops(3*num_tokens*num_heads*head_size)
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
