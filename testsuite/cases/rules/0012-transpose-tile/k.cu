#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(rows=256, cols=512) shapes(rows=33, cols=67)
#pragma astra buffers(out[rows * cols], in[rows * cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows * cols + 255) / 256, block=256)
#pragma astra types(T=float)
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
