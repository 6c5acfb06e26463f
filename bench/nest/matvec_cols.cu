// Loop nests with reuse (issue 29 item 2), for the GPU: y = A^T x written
// a thread per output element j walking column j of a row-major matrix
// (PolyBench's atax second kernel, bicg's first, mvt's second; written
// here from scratch).  The loads are coalesced, but each of the n threads
// adds m terms one after another.  lower-matvec splits the sum over
// threadIdx.y (32 rows per block of dim3(32, 16)).
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(n=37, m=45) shapes(n=8192, m=8192) buffers(a[m*n], x[m], y[n]) outputs(y)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void nest_matvec_cols(int n, int m, const float *a, const float *x, float *y)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < n) {
		y[j] = 0;
		for (int i = 0; i < m; i++)
			y[j] += a[i * n + j] * x[i];
	}
}
