#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(rows=64, cols=256)
#pragma astra buffers(out[rows * cols], x[rows * cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
__global__ void scan_rows(float *out, const float *x, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < rows) {
		const float *xr = x + (size_t)row * cols;
		float *o = out + (size_t)row * cols;
		float mx = -INFINITY;
		for (int j = 0; j < cols; ++j)
			mx = fmaxf(mx, xr[j]);
		float acc = 0.0f;
		for (int j = 0; j < cols; ++j) {
			acc += xr[j] - mx;
			o[j] = acc;
		}
	}
}
