#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(rows=64, cols=1000)
#pragma astra buffers(out[rows * cols], x[rows * cols], w[rows], b[rows])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
#pragma astra noalias
__global__ void affine_rows(float *out, const float *x, const float *w, const float *b, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	for (int j = 0; j < cols; ++j) {
		float scale = w[row] * 0.5f;
		float bias = expf(b[row]);
		float v = x[(size_t)row * cols + j];
		out[(size_t)row * cols + j] = v * scale + bias;
	}
}
