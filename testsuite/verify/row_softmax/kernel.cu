/*
 * row_softmax - the verifier suite's thread-per-row kernel, as first
 * versions of softmax often are: each thread walks a whole row three times
 * (max, sum of exponentials, normalize).  Correct rewrites change the
 * launch geometry (a warp per row).
 */
#include <cuda_fp16.h>

#pragma astra optimize
#pragma astra shapes(rows=512, cols=1024) shapes(rows=7, cols=4099)
#pragma astra shapes(rows=1, cols=1) shapes(rows=33, cols=32)
#pragma astra buffers(out[rows*cols], x[rows*cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
#pragma astra range(x: -8 .. 8)
#pragma astra flops(5*rows*cols)
__global__ void row_softmax(float *out, const float *x, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + (size_t)r * cols;
	float *o = out + (size_t)r * cols;
	float m = -INFINITY;
	for (int c = 0; c < cols; c++)
		m = fmaxf(m, xr[c]);
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += expf(xr[c] - m);
	for (int c = 0; c < cols; c++)
		o[c] = expf(xr[c] - m) / s;
}
