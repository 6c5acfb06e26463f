#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(rows=64, cols=2048) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows * cols], stats[2 * rows], x[rows * cols])
#pragma astra outputs(out, stats)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
__global__ void norm_rows(float *out, float *stats, const float *x, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float m = -INFINITY;
	float s = 0.0f;
	for (int j = 0; j < cols; j++) {
		m = fmaxf(m, fabsf(xr[j]));
		s += xr[j];
	}
	stats[2 * row] = m;
	stats[2 * row + 1] = s;
	float inv = 1.0f / (m + 1e-6f);
	for (int j = 0; j < cols; j++)
		out[(size_t)row * cols + j] = (xr[j] - s / cols) * inv;
}
