// style: __ldg loads, an index named idx, a bound named num_elements
// expect: elems-per-thread grid-stride
#pragma astra shapes(n=100000) shapes(n=1001)
#pragma astra buffers(out[n], x[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra range(x: -8 .. 8)
#pragma astra noalias
__global__ void gelu(float *out, const float *__restrict__ x, int n)
{
	const int idx = blockDim.x * blockIdx.x + threadIdx.x;
	if (idx >= n) return;
	const float v = __ldg(&x[idx]);
	out[idx] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
}
