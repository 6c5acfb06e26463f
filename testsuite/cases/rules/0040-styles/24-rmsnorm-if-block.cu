// style: thread per row under an if block, not an early return
// expect: block-per-row warp-per-row
#pragma astra shapes(rows=256, cols=1024) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127)/128, block=128)
#pragma astra scalars(eps=1e-6f)
#pragma astra range(x: -4 .. 4)
#pragma astra noalias
__global__ void rmsnorm_rows(float *out, const float *x, const float *w, float eps, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < rows) {
		const float *xr = x + (size_t)row * cols;
		float *outr = out + (size_t)row * cols;
		float sumsq = 0.0f;
		for (int i = 0; i < cols; i++)
			sumsq += xr[i] * xr[i];
		float inv = rsqrtf(sumsq / cols + eps);
		for (int i = 0; i < cols; i++)
			outr[i] = xr[i] * inv * w[i];
	}
}
