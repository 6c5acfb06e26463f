#include "inc.h"
#define F(x) ((x) + 1)   /* a macro */
__device__ int g(int v) { return F(v); }
#pragma astra shapes(n=4) buffers(p[n]) outputs(p) launch(grid=1, block=n)
__global__ void k(int *p, int n)
{
	// comments do not count
	p[threadIdx.x] = g(n);
}
