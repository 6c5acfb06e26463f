// A function-like macro whose parameter list never closes on its line,
// used by a kernel (not valid CUDA; for the extraction only).  The
// environment reader drops such a macro; it once leaked the parameter
// names it had read (found by fuzz/0002 with a random seed).
#define SCALE(a, b
#define TWICE(v) ((v) + (v))
#pragma astra shapes(n=1024) buffers(x[n]) outputs(x) launch(grid=(n+255)/256, block=256)
__global__ void twice(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = TWICE(x[i]) * SCALE;
}
