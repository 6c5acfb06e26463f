// style: a block-per-row loop with tid/nthreads locals and a row pointer from a helper
// expect: vectorize
__device__ __forceinline__ const float *row_ptr(const float *base, int row, int cols)
{
	return base + (size_t)row * cols;
}

#pragma astra shapes(rows=64, cols=4096) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=rows, block=256)
#pragma astra scalars(eps=1e-6f)
#pragma astra range(x: -2 .. 2)
#pragma astra noalias
__global__ void scale_rows(float *out, const float *x, const float *w, float eps, int rows, int cols)
{
	const int tid = threadIdx.x, nthreads = blockDim.x;
	const float *xr = row_ptr(x, blockIdx.x, cols);
	float *yr = out + (size_t)blockIdx.x * cols;
	for (int k = tid; k < cols; k += nthreads)
		yr[k] = xr[k] * w[k] + eps;
}
