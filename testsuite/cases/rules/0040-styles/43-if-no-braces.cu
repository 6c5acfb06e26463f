// style: a size_t index and the body a single statement under if
// expect: elems-per-thread grid-stride fastmath
#pragma astra shapes(n=100000) shapes(n=1001)
#pragma astra buffers(out[n], x[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra range(x: -8 .. 8)
#pragma astra noalias
__global__ void sigmoid(float *out, const float *x, int n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 1.0f / (1.0f + expf(-x[i]));
}
