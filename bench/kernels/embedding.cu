/*
 * embedding - token embedding lookup (the first op of every LLM forward):
 * out[t] = table[ids[t]], a row of hidden values per token; ids outside
 * [0, vocab) (padding) give a row of zeros.
 *
 * First version, THREAD-PER-ROW: one thread copies its token's whole row
 * with scalar loads and stores.  Neighbouring threads touch rows far apart,
 * so nothing is coalesced and only tokens threads exist.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra optimize
#pragma astra shapes(tokens=8192, hidden=4096) shapes(tokens=256, hidden=5120)
#pragma astra shapes(tokens=7, hidden=4096) shapes(tokens=1, hidden=5120) shapes(tokens=5, hidden=1003)
#pragma astra scalars(vocab=32000)
#pragma astra buffers(out[tokens*hidden], ids[tokens], table[vocab*hidden])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens + 127)/128, block=128)
#pragma astra types(T=__half) types(T=__nv_bfloat16)
#pragma astra range(ids: 0 .. 31999)
#pragma astra tolerance(rtol=0, atol=0)
#pragma astra noalias
#pragma astra bytes(tokens*sizeof(int) + 2*(size_t)tokens*hidden*sizeof(T))
template <typename T>
__global__ void embedding(T *out, const int *ids, const T *table, int tokens, int hidden,
			  int vocab)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= tokens)
		return;
	int id = ids[t];
	T *o = out + (size_t)t * hidden;
	if (id < 0 || id >= vocab) {
		for (int i = 0; i < hidden; i++)
			o[i] = (T)0.0f;
		return;
	}
	const T *row = table + (size_t)id * hidden;
	for (int i = 0; i < hidden; i++)
		o[i] = row[i];
}
