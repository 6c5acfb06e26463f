// expect: accepted
// Two elements per thread (its own, halved grid), the guard as a branch.
#pragma astra launch(grid=(n + 511) / 512, block=256)
__global__ void entropy(float *out, const float *p, int n)
{
	int i = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
#pragma unroll
	for (int k = 0; k < 2; k++, i++)
		if (i < n) {
			float v = p[i];
			out[i] = v > 0.0f ? -v * logf(v) : 0.0f;
		}
}
