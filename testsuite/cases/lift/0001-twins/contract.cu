// A matrix product C = beta*C + alpha*A*B written a thread per element of
// a 2-D grid with a loop over k: the running sum in the output element
// itself, in a register that starts from beta*C, with an early return and
// the indices in the other order.  All lift to one sum over k that starts
// from beta * c[r,c].
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(ni=33, nj=47, nk=29) buffers(a[ni*nk], b[nk*nj], c[ni*nj]) outputs(c) scalars(alpha=1.5f, beta=0.5f)
#pragma astra launch(grid=dim3((nj + 15) / 16, (ni + 15) / 16), block=dim3(16, 16))
__global__ void gemm__mem(int ni, int nj, int nk, float alpha, float beta, const float *a, const float *b, float *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < ni && j < nj) {
		c[i * nj + j] *= beta;
		for (int k = 0; k < nk; k++)
			c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
	}
}

#pragma astra optimize
#pragma astra shapes(ni=33, nj=47, nk=29) buffers(a[ni*nk], b[nk*nj], c[ni*nj]) outputs(c) scalars(alpha=1.5f, beta=0.5f)
#pragma astra launch(grid=dim3((nj + 15) / 16, (ni + 15) / 16), block=dim3(16, 16))
__global__ void gemm__reg(int ni, int nj, int nk, float alpha, float beta, const float *a, const float *b, float *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < ni && j < nj) {
		float acc = beta * c[i * nj + j];
		for (int k = 0; k < nk; k++)
			acc += alpha * a[i * nk + k] * b[k * nj + j];
		c[i * nj + j] = acc;
	}
}

#pragma astra optimize
#pragma astra shapes(ni=33, nj=47, nk=29) buffers(a[ni*nk], b[nk*nj], c[ni*nj]) outputs(c) scalars(alpha=1.5f, beta=0.5f)
#pragma astra launch(grid=dim3((nj + 15) / 16, (ni + 15) / 16), block=dim3(16, 16))
__global__ void gemm__return(int ni, int nj, int nk, float alpha, float beta, const float *a, const float *b, float *c)
{
	const int row = threadIdx.y + blockDim.y * blockIdx.y;
	const int col = threadIdx.x + blockDim.x * blockIdx.x;
	if (row >= ni || col >= nj)
		return;
	float *out = c + row * nj + col;
	*out = *out * beta;
	for (int k = 0; k < nk; ++k)
		*out += alpha * a[row * nk + k] * b[col + k * nj];
}
