// style: 1-D transpose under an if block
// expect: transpose-tile
#pragma astra shapes(rows=1024, cols=512) shapes(rows=33, cols=67)
#pragma astra buffers(out[rows*cols], in[rows*cols])
#pragma astra outputs(out)
#pragma astra tolerance(rtol=0, atol=0)
#pragma astra noalias
#pragma astra launch(grid=(rows*cols + 255)/256, block=256)
__global__ void transpose1d(float *out, const float *in, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < rows * cols) {
		int r = i / cols;
		int c = i % cols;
		out[c * rows + r] = in[r * cols + c];
	}
}
