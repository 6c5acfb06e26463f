/* Wrong: the original's code, and thread 0 also writes the element before
 * query (an in-place buffer). */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

#pragma astra launch(grid=(num_tokens*(num_heads + num_kv_heads)*(head_size/2) + 255)/256, block=256)
template <typename T>
__global__ void rotary_neox(const int64_t *positions, T *query, T *key,
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
	float x = (float)v[r];
	float y = (float)v[half + r];
	v[r] = (T)(x * c - y * s);
	v[half + r] = (T)(y * c + x * s);
	if (i == 0)
		query[-1] = (T)0.0f;
}
