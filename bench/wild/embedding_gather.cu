/*
 * Style: a token-embedding gather with int64_t token ids and size_t row
 * offsets (casts before the multiply so vocab * hidden cannot overflow),
 * a thread per token looping over the hidden dimension.
 * Computes: out[t, :] = table[ids[t], :], fp16 or bf16 (an exact copy).
 * THREAD-PER-ROW
 * Flags: none
 * Expect: block-per-row vectorize
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#pragma astra optimize noalias
#pragma astra shapes(tokens=8192, hidden=4096) shapes(tokens=512, hidden=2048) shapes(tokens=5, hidden=1003) \
	shapes(tokens=1, hidden=1)
#pragma astra buffers(out[tokens*hidden], ids[tokens], table[vocab*hidden]) outputs(out)
#pragma astra launch(grid=(tokens + 63) / 64, block=64)
#pragma astra types(T=__half) types(T=__nv_bfloat16)
#pragma astra scalars(vocab=32000) range(ids: 0 .. 31999) tolerance(rtol=0, atol=0)
#pragma astra bytes(2*2*tokens*hidden + 8*tokens)
template <typename T>
__global__ void embedding_gather(T *out, const int64_t *ids, const T *table, int tokens, int hidden, int vocab)
{
	int token = blockIdx.x * blockDim.x + threadIdx.x;
	if (token >= tokens)
		return;
	const int64_t id = ids[token];
	const T *src = table + static_cast<size_t>(id) * hidden;
	T *dst = out + static_cast<size_t>(token) * hidden;
	for (int h = 0; h < hidden; ++h)
		dst[h] = src[h];
}
