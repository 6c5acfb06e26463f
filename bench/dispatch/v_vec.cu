#pragma astra launch(grid=(t*d/2 + 255)/256, block=256)
template <typename T>
__global__ void silu(T *out, const T *in, int t, int d)
{
	int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
	for (int k = i; k < i + 2 && k < t * d; k++) {
		float g = (float)in[(k / d) * 2 * d + k % d];
		float u = (float)in[(k / d) * 2 * d + d + k % d];
		out[k] = (T)(g / (1.0f + __expf(-g)) * u);
	}
}
