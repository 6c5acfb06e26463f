// Loop nests with reuse (issue 29 item 2), for the GPU: a matrix product
// written a thread per output element (PolyBench's gemm shape, written
// here from scratch).  lower-contract and lower-contract-rb apply.
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(ni=37, nj=45, nk=29) shapes(ni=2048, nj=2048, nk=2048) buffers(a[ni*nk], b[nk*nj], c[ni*nj]) outputs(c) scalars(alpha=1.5f, beta=0.5f)
#pragma astra launch(grid=dim3((nj + 31) / 32, (ni + 7) / 8), block=dim3(32, 8))
__global__ void nest_gemm(int ni, int nj, int nk, float alpha, float beta, const float *a, const float *b, float *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < ni && j < nj) {
		c[i * nj + j] *= beta;
		for (int k = 0; k < nk; k++)
			c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
	}
}
