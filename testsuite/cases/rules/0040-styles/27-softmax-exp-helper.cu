// style: the exponential in a helper, the row from a helper
// expect: fastmath block-per-row warp-per-row
__device__ __forceinline__ float exp_shifted(float v, float m)
{
	return expf(v - m);
}

__device__ __forceinline__ int thread_row()
{
	return blockIdx.x * blockDim.x + threadIdx.x;
}

#pragma astra shapes(rows=256, cols=1024) shapes(rows=7, cols=1000)
#pragma astra buffers(out[rows*cols], x[rows*cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127)/128, block=128)
#pragma astra range(x: -10 .. 10)
#pragma astra tolerance(out: rtol=1e-4, atol=1e-7)
#pragma astra noalias
__global__ void softmax_rows(float *out, const float *x, int rows, int cols)
{
	int row = thread_row();
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *outr = out + (size_t)row * cols;

	float m = -INFINITY;
	for (int i = 0; i < cols; i++)
		m = fmaxf(m, xr[i]);
	float sum = 0.0f;
	for (int i = 0; i < cols; i++)
		sum += exp_shifted(xr[i], m);
	for (int i = 0; i < cols; i++)
		outr[i] = exp_shifted(xr[i], m) / sum;
}
