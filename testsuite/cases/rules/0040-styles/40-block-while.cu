// style: a block-strided loop written with while
// expect: vectorize
#pragma astra shapes(rows=64, cols=4096) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=rows, block=256)
#pragma astra noalias
__global__ void scale_rows(float *out, const float *x, const float *w, int rows, int cols)
{
	const float *xr = x + (size_t)blockIdx.x * cols;
	float *outr = out + (size_t)blockIdx.x * cols;
	int i = threadIdx.x;
	while (i < cols) {
		outr[i] = xr[i] * w[i];
		i += blockDim.x;
	}
}
