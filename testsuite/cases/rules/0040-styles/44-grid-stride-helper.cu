// style: a grid-stride for loop calling an activation helper
// expect: vectorize fastmath
__device__ float swish(float v) { return v / (1.0f + __expf(-v)); }

#pragma astra shapes(n=100000) shapes(n=1001)
#pragma astra buffers(out[n], x[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra range(x: -8 .. 8)
#pragma astra noalias
__global__ void swish_kernel(float *out, const float *x, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		out[i] = swish(x[i]) * 2.0f;
}
