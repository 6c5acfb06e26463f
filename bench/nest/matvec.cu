// Loop nests with reuse (issue 29 item 2), for the GPU: y = A x written a
// thread per row walking its row (PolyBench's atax/mvt shape, written here
// from scratch): uncoalesced.  lower-matvec applies.
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(n=37, m=45) shapes(n=8192, m=8192) buffers(a[n*m], x[m], y[n]) outputs(y)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void nest_matvec(int n, int m, const float *a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		y[i] = 0;
		for (int j = 0; j < m; j++)
			y[i] += a[i * m + j] * x[j];
	}
}
