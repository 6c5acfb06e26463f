// style: thread-per-row layernorm, mean and variance in one loop, 64-bit offsets inline
// expect: block-per-row warp-per-row
#include <stdint.h>
#pragma astra shapes(rows=256, cols=1024) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols], b[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
#pragma astra scalars(eps=1e-5f)
#pragma astra range(x: -4 .. 4)
#pragma astra tolerance(out: rtol=1e-3, atol=1e-4)
#pragma astra noalias
__global__ void layernorm_rows(float *out, const float *x, const float *w, const float *b, float eps, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	float sum = 0.0f, sumsq = 0.0f;
	for (int j = 0; j < cols; ++j) {
		float v = x[(int64_t)row * cols + j];
		sum += v;
		sumsq += v * v;
	}
	float mean = sum / cols;
	float var = sumsq / cols - mean * mean;
	float rstd = rsqrtf(var + eps);
	for (int j = 0; j < cols; ++j)
		out[(int64_t)row * cols + j] = (x[(int64_t)row * cols + j] - mean) * rstd * w[j] + b[j];
}
