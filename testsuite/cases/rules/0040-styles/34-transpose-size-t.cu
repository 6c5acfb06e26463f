// style: 1-D transpose with a size_t index, row and column from it
// expect: transpose-tile
#pragma astra shapes(rows=1024, cols=512) shapes(rows=33, cols=67)
#pragma astra buffers(out[rows*cols], in[rows*cols])
#pragma astra outputs(out)
#pragma astra tolerance(rtol=0, atol=0)
#pragma astra noalias
#pragma astra launch(grid=(rows*cols + 255)/256, block=256)
__global__ void transpose1d(float *out, const float *in, int rows, int cols)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (size_t)rows * cols)
		return;
	size_t r = i / cols;
	size_t c = i % cols;
	out[c * rows + r] = in[i];
}
