// style: the row maximum as a conditional expression, index as size_t
// expect: block-per-row warp-per-row
// expect-text: block-per-row _bred_fmaxf(m)
// expect-text: warp-per-row _wred_fmaxf(m)
#pragma astra shapes(rows=256, cols=1024) shapes(rows=7, cols=1000)
#pragma astra buffers(out[rows*cols], x[rows*cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127)/128, block=128)
#pragma astra range(x: -10 .. 10)
#pragma astra tolerance(out: rtol=1e-4, atol=1e-7)
#pragma astra noalias
__global__ void softmax_rows(float *out, const float *x, int rows, int cols)
{
	size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + row * cols;
	float *outr = out + row * cols;

	float m = -INFINITY;
	for (int i = 0; i < cols; i++)
		m = xr[i] > m ? xr[i] : m;
	float sum = 0.0f;
	for (int i = 0; i < cols; i++)
		sum += expf(xr[i] - m);
	for (int i = 0; i < cols; i++)
		outr[i] = expf(xr[i] - m) / sum;
}
