// expect: accepted
// The fast logarithm (__logf), the guard kept.
__global__ void entropy(float *out, const float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = p[i];
		out[i] = -v * __logf(fmaxf(v, 1e-30f));
	}
}
