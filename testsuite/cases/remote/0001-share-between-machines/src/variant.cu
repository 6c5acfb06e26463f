__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = 2.0f * x[i] + 0.5f;  /* not the same function: this test only checks which code is compiled */
}
