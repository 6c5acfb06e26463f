// style: 2-D transpose with row/col names and the bounds in the other order
// expect: transpose-tile
#pragma astra shapes(rows=1024, cols=512) shapes(rows=33, cols=67)
#pragma astra buffers(out[rows*cols], in[rows*cols])
#pragma astra outputs(out)
#pragma astra tolerance(rtol=0, atol=0)
#pragma astra launch(grid=dim3((cols + 31) / 32, (rows + 31) / 32), block=dim3(32, 32))
#pragma astra noalias
__global__ void transpose_naive(float *out, const float *in, int rows, int cols)
{
	const int col = blockIdx.x * blockDim.x + threadIdx.x;
	const int row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row < rows && col < cols) {
		out[col * rows + row] = in[row * cols + col];
	}
}
