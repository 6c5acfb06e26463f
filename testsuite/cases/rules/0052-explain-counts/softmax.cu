/*
 * softmax - numerically stable softmax of each row of an fp32 matrix
 * (attention scores, sampling over logits):
 * out[r][i] = exp(x[r][i] - max_r) / sum_j exp(x[r][j] - max_r).
 *
 * First version, THREAD-PER-ROW: one thread walks its whole row three
 * times (max, sum, write) with scalar loads, as quick first versions often
 * do.  No load is coalesced and only rows threads exist.
 */
#include <math.h>

#pragma astra optimize
#pragma astra shapes(rows=4096, cols=4096) shapes(rows=64, cols=32000)
#pragma astra shapes(rows=7, cols=5120) shapes(rows=1, cols=4096) shapes(rows=33, cols=1000)
#pragma astra buffers(out[rows*cols], x[rows*cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127)/128, block=128)
#pragma astra range(x: -10 .. 10)
#pragma astra tolerance(out: rtol=1e-4, atol=1e-7)
#pragma astra noalias
#pragma astra flops(4*rows*cols)
__global__ void softmax(float *out, const float *x, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *outr = out + (size_t)row * cols;

	float m = -INFINITY;
	for (int i = 0; i < cols; i++)
		m = fmaxf(m, xr[i]);
	float sum = 0.0f;
	for (int i = 0; i < cols; i++)
		sum += expf(xr[i] - m);
	for (int i = 0; i < cols; i++)
		outr[i] = expf(xr[i] - m) / sum;
}
