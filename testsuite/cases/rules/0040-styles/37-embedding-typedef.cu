// style: embedding gather, element type through a typedef, int64 row offsets
// expect: block-per-row warp-per-row
#include <cuda_fp16.h>
#include <stdint.h>

typedef __half floatX;

#pragma astra shapes(tokens=256, hidden=1024) shapes(tokens=5, hidden=1003)
#pragma astra scalars(vocab=1000)
#pragma astra buffers(out[tokens*hidden], ids[tokens], table[vocab*hidden])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens + 127)/128, block=128)
#pragma astra range(ids: 0 .. 999)
#pragma astra tolerance(rtol=0, atol=0)
#pragma astra noalias
__global__ void embed(floatX *out, const int *ids, const floatX *table, int tokens, int hidden, int vocab)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t < tokens) {
		int64_t id = ids[t];
		const floatX *src = table + id * hidden;
		floatX *dst = out + (int64_t)t * hidden;
		for (int i = 0; i < hidden; ++i)
			dst[i] = src[i];
	}
}
