/*
 * entropy - the verifier suite's kernel with a numerical guard: the terms
 * -p log p of an entropy, with log's argument clamped away from zero so
 * that p = 0 contributes 0 (as it should) instead of 0 * -inf = NaN.
 * range() says p is a probability, 0 included.
 */
#pragma astra optimize
#pragma astra shapes(n=1048576) shapes(n=4099) shapes(n=1)
#pragma astra buffers(out[n], p[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra range(p: 0 .. 1)
__global__ void entropy(float *out, const float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = -p[i] * logf(fmaxf(p[i], 1e-30f));
}
