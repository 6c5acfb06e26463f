/*
 * transpose - out = in^T for a row-major rows x cols matrix (layout
 * changes around GEMMs, KV-cache and weight re-layouts).
 *
 * First version: one element per thread over the input's flat index, so
 * loads are coalesced and stores are strided by rows elements.
 */
#include <cuda_fp16.h>

#pragma astra optimize
#pragma astra shapes(rows=4096, cols=8192) shapes(rows=1024, cols=1024)
#pragma astra shapes(rows=7, cols=5120) shapes(rows=1, cols=4096) shapes(rows=33, cols=67)
#pragma astra buffers(out[rows*cols], in[rows*cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows*cols + 255)/256, block=256)
#pragma astra types(T=float) types(T=__half)
#pragma astra tolerance(rtol=0, atol=0)
#pragma astra noalias
template <typename T>
__global__ void transpose(T *out, const T *in, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= rows * cols)
		return;
	int r = i / cols;
	int c = i % cols;
	out[(size_t)c * rows + r] = in[i];
}
