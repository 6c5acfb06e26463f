/* A scaled softmax over the rows of a score matrix, a thread per row. */
#pragma astra shapes(rows=512, cols=2048) shapes(rows=3, cols=1000) shapes(rows=1, cols=33)
#pragma astra buffers(probs[rows*cols], scores[rows*cols])
#pragma astra outputs(probs)
#pragma astra launch(grid=(rows + 63) / 64, block=64)
#pragma astra scalars(scale=0.125f)
#pragma astra range(scores: -40 .. 40)
#pragma astra tolerance(probs: rtol=1e-4, atol=1e-7)
#pragma astra noalias
__global__ void scaled_softmax(float *probs, const float *scores, float scale, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *s = scores + (size_t)r * cols;
	float *p = probs + (size_t)r * cols;
	float mx = -INFINITY;
	for (int c = 0; c < cols; c++)
		mx = fmaxf(mx, s[c] * scale);
	float total = 0.0f;
	for (int c = 0; c < cols; c++)
		total += expf(s[c] * scale - mx);
	for (int c = 0; c < cols; c++)
		p[c] = expf(s[c] * scale - mx) / total;
}
