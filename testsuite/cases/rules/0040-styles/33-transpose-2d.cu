// style: the textbook 2-D transpose (x is the column, y the row)
// expect: transpose-tile
#pragma astra shapes(rows=1024, cols=512) shapes(rows=33, cols=67)
#pragma astra buffers(out[rows*cols], in[rows*cols])
#pragma astra outputs(out)
#pragma astra tolerance(rtol=0, atol=0)
#pragma astra noalias
#pragma astra launch(grid=dim3((cols + 15) / 16, (rows + 15) / 16), block=dim3(16, 16))
__global__ void transpose2d(float *out, const float *in, int rows, int cols)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < cols && y < rows)
		out[x * rows + y] = in[y * cols + x];
}
