// style: embedding gather with the row and the offset from helpers
// expect: block-per-row warp-per-row
#include <cuda_fp16.h>

__device__ __forceinline__ int row_of_thread()
{
	return threadIdx.x + blockIdx.x * blockDim.x;
}

__device__ __forceinline__ size_t row_offset(int row, int width)
{
	return (size_t)row * width;
}

#pragma astra shapes(tokens=256, hidden=1024) shapes(tokens=5, hidden=1003)
#pragma astra scalars(vocab=1000)
#pragma astra buffers(out[tokens*hidden], ids[tokens], table[vocab*hidden])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens + 127)/128, block=128)
#pragma astra range(ids: 0 .. 999)
#pragma astra tolerance(rtol=0, atol=0)
#pragma astra noalias
__global__ void embed(__half *out, const int *ids, const __half *table, int tokens, int hidden, int vocab)
{
	const int t = row_of_thread();
	if (t >= tokens)
		return;
	const __half *src = table + row_offset(ids[t], hidden);
	__half *dst = out + row_offset(t, hidden);
	for (int i = 0; i < hidden; i++)
		dst[i] = src[i];
}
