#pragma astra optimize
#pragma astra shapes(n=4096, s=2) shapes(n=300000, s=3)
#pragma astra buffers(out[n], in[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 255)/256, block=256)
__global__ void k(float *out, const float *in, int n, int s)
{
	s = s * 2;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	out[i] = in[i] * s + in[i % s];
}
