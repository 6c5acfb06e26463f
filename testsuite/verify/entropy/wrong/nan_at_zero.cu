// expect: rejected nonfinite
// Drops the guard as "unnecessary": p = 0 gives 0 * -inf = NaN.  Inputs
// drawn uniformly almost never hit 0; the verifier's other distributions
// (exact zeros, the ends of the range) do.
__global__ void entropy(float *out, const float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = -p[i] * __logf(p[i]);
}
