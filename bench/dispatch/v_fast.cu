template <typename T>
__global__ void silu(T *out, const T *in, int t, int d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= t * d)
		return;
	float g = (float)in[(i / d) * 2 * d + i % d];
	float u = (float)in[(i / d) * 2 * d + d + i % d];
	out[i] = (T)(__fdividef(g, 1.0f + __expf(-g)) * u);
}
