/*
 * scale_bias - the verifier suite's elementwise kernel, one element per
 * thread: out[r][c] = x[r][c] * scale + bias[c], in fp32 and fp16.  The
 * candidates next to this file each make one mistake (wrong/) or are
 * correct rewrites (right/).
 */
#include <cuda_fp16.h>

#pragma astra optimize
#pragma astra shapes(rows=256, cols=4096) shapes(rows=7, cols=4099)
#pragma astra shapes(rows=1, cols=1) shapes(rows=3, cols=33)
#pragma astra buffers(out[rows*cols], x[rows*cols], bias[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows*cols + 255) / 256, block=256)
#pragma astra types(T=float) types(T=__half)
#pragma astra scalars(scale=0.75f)
#pragma astra flops(2*rows*cols)
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols)
		out[i] = (T)((float)x[i] * scale + (float)bias[i % cols]);
}
