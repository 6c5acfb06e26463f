/*
 * rotary_gptj - rotary position embedding, GPT-J style (interleaved): the
 * rotated pairs are neighbours (x[2i], x[2i + 1]).  query and key are
 * rotated in place; cos_sin_cache holds, per position, head_size/2 cosines
 * then head_size/2 sines (vLLM/SGLang layout).  query is
 * [num_tokens, num_heads, head_size], key [num_tokens, num_kv_heads, head_size].
 *
 * First version: one rotated pair per thread, scalar 16-bit loads.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

#pragma astra optimize
#pragma astra shapes(num_tokens=4096, num_heads=64, num_kv_heads=8, head_size=128)
#pragma astra shapes(num_tokens=256, num_heads=32, num_kv_heads=8, head_size=128)
#pragma astra shapes(num_tokens=7, num_heads=32, num_kv_heads=32, head_size=128)
#pragma astra shapes(num_tokens=1, num_heads=8, num_kv_heads=1, head_size=64)
#pragma astra shapes(num_tokens=3, num_heads=5, num_kv_heads=1, head_size=36)
#pragma astra buffers(positions[num_tokens], cos_sin_cache[4096*head_size])
#pragma astra buffers(query[num_tokens*num_heads*head_size], key[num_tokens*num_kv_heads*head_size])
#pragma astra outputs(query, key)
#pragma astra launch(grid=(num_tokens*(num_heads + num_kv_heads)*(head_size/2) + 255)/256, block=256)
#pragma astra types(T=__half) types(T=__nv_bfloat16)
#pragma astra range(positions: 0 .. 4095) range(cos_sin_cache: -1 .. 1)
#pragma astra tolerance(rtol=1e-2, atol=1e-3)
#pragma astra noalias
#pragma astra flops(3*num_tokens*(num_heads + num_kv_heads)*head_size)
template <typename T>
__global__ void rotary_gptj(const int64_t *positions, T *query, T *key,
			    const T *cos_sin_cache, int num_tokens, int num_heads,
			    int num_kv_heads, int head_size)
{
	int half = head_size / 2;
	int heads = num_heads + num_kv_heads;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= num_tokens * heads * half)
		return;
	int token = i / (heads * half);
	int head = (i / half) % heads;
	int r = i % half;

	T *v = head < num_heads ? query + ((size_t)token * num_heads + head) * head_size
				: key + ((size_t)token * num_kv_heads + head - num_heads) * head_size;
	const T *cache = cos_sin_cache + positions[token] * head_size;
	float c = (float)cache[r];
	float s = (float)cache[half + r];
	float x = (float)v[2 * r];
	float y = (float)v[2 * r + 1];
	v[2 * r] = (T)(x * c - y * s);
	v[2 * r + 1] = (T)(y * c + x * s);
}
