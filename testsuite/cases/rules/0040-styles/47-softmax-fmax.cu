// style: fmax (not fmaxf) and a reciprocal of the sum
// expect: block-per-row warp-per-row fastmath
// expect-text: warp-per-row _wred_fmaxf(mx)
#pragma astra shapes(rows=256, cols=1024) shapes(rows=7, cols=1000)
#pragma astra buffers(out[rows*cols], x[rows*cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127)/128, block=128)
#pragma astra range(x: -10 .. 10)
#pragma astra tolerance(out: rtol=1e-4, atol=1e-7)
#pragma astra noalias
__global__ void softmax_rows(float *out, const float *x, int rows, int cols)
{
	int r = threadIdx.x + blockIdx.x * blockDim.x;
	if (r < rows) {
		const float *in = x + r * cols;
		float mx = in[0];
		for (int c = 1; c < cols; c++)
			mx = fmax(mx, in[c]);
		float s = 0.f;
		for (int c = 0; c < cols; c++)
			s += expf(in[c] - mx);
		float inv = 1.f / s;
		for (int c = 0; c < cols; c++)
			out[r * cols + c] = expf(in[c] - mx) * inv;
	}
}
