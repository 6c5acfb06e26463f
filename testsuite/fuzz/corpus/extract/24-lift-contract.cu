// Matrix products written as a loop nest per output element (a 2-D grid,
// a thread per C[i][j], a loop over k), the shapes of the PolyBench
// linear-algebra kernels, written here from scratch: the running sum in a
// register or in the output itself, C = A*B, C = alpha*A*B + beta*C,
// C = alpha*A*A^T + beta*C.
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(ni=33, nj=47, nk=29) shapes(ni=64, nj=64, nk=64) shapes(ni=70, nj=130, nk=20) buffers(a[ni*nk], b[nk*nj], c[ni*nj]) outputs(c) scalars(alpha=1.5f, beta=0.5f)
#pragma astra launch(grid=dim3((nj + 31) / 32, (ni + 7) / 8), block=dim3(32, 8))
__global__ void mm__reg(int ni, int nj, int nk, float alpha, float beta, const float *a, const float *b, float *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < ni && j < nj) {
		float sum = 0.0f;
		for (int k = 0; k < nk; k++)
			sum += a[i * nk + k] * b[k * nj + j];
		c[i * nj + j] = alpha * sum + beta * c[i * nj + j];
	}
}

#pragma astra optimize
#pragma astra shapes(ni=33, nj=47, nk=29) shapes(ni=64, nj=64, nk=64) buffers(a[ni*nk], b[nk*nj], c[ni*nj]) outputs(c) scalars(alpha=1.5f, beta=0.5f)
#pragma astra launch(grid=dim3((nj + 31) / 32, (ni + 7) / 8), block=dim3(32, 8))
__global__ void mm__mem(int ni, int nj, int nk, float alpha, float beta, float *a, float *b, float *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if ((i < ni) && (j < nj)) {
		c[i * nj + j] *= beta;
		for (int k = 0; k < nk; k++)
			c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
	}
}

#pragma astra optimize
#pragma astra shapes(n=45, m=19) shapes(n=64, m=32) buffers(a[n*m], c[n*n]) outputs(c) scalars(alpha=1.5f, beta=0.5f)
#pragma astra launch(grid=dim3((n + 31) / 32, (n + 7) / 8), block=dim3(32, 8))
__global__ void syrk__mem(int n, int m, float alpha, float beta, float *a, float *c)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if ((i < n) && (j < n)) {
		c[i * n + j] *= beta;
		for (int k = 0; k < m; k++)
			c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
	}
}


// double, and the operand B read transposed (k contiguous): 2mm's second product shape
#pragma astra optimize
#pragma astra shapes(ni=21, nl=40, nj=35) buffers(tmp[ni*nj], d[nl*nj], e[ni*nl]) outputs(e) scalars(beta=0.25)
#pragma astra launch(grid=dim3((nl + 31) / 32, (ni + 7) / 8), block=dim3(32, 8))
__global__ void mm__dbl(int ni, int nl, int nj, double beta, const double *tmp, const double *d, double *e)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if ((i < ni) && (j < nl)) {
		e[i * nl + j] *= beta;
		for (int k = 0; k < nj; k++)
			e[i * nl + j] += tmp[i * nj + k] * d[j * nj + k];
	}
}

// Not lowered: the sum's operand is gathered through an index table.
#pragma astra optimize
#pragma astra shapes(ni=33, nj=47, nk=29) buffers(a[ni*nk], b[nk*nj], c[ni*nj], idx[nk]) outputs(c)
#pragma astra launch(grid=dim3((nj + 31) / 32, (ni + 7) / 8), block=dim3(32, 8))
__global__ void mm__gather(int ni, int nj, int nk, const float *a, const float *b, float *c, const int *idx)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < ni && j < nj) {
		float sum = 0.0f;
		for (int k = 0; k < nk; k++)
			sum += a[i * nk + k] * b[idx[k] * nj + j];
		c[i * nj + j] = sum;
	}
}
