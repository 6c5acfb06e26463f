/* A program's own min and max, as function-like macros written the way
 * many CUDA programs write them (unparenthesized, spaced), defined before
 * the kernel and used in it. */
#include <stdio.h>
#define min( a, b )			a > b ? b : a
#define max(a, b) ((a) > (b) ? (a) : (b))

#pragma astra shapes(n=4096, lo=0.5) shapes(n=1000, lo=0.25)
#pragma astra buffers(x[n], y[n])
#pragma astra outputs(y)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void clamp_sq(const float *x, float *y, int n, float lo)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = max(x[i] * x[i], lo) + (min(x[i], 1.0f));
}

int main(void)
{
	printf("%d\n", min(3, 4));
	return 0;
}
