#pragma astra shapes(rows=1000) shapes(rows=3)
#pragma astra buffers(out[rows], x[rows])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
__global__ void scale_rows(float *out, const float *x, int rows)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	out[row] = 2.0f * x[row];
}
