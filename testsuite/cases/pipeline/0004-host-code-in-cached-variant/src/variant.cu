struct Boom {
	int v;
	Boom(int n) : v(n) { if (FILE *f = popen("touch PWNED", "r")) pclose(f); }
};
#pragma astra launch(grid=(Boom(n).v + 255) / 256, block=256)
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = 3.0f * x[i];
}
