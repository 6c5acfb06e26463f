// The column-walk twins of lift/0005-matvec's kernels, in the shapes of
// PolyBench's atax (second kernel), bicg (first), mvt (second) and gemver
// (the x update), written here from scratch: a thread per output element
// j walks A[i * n + j] over i.  Adjacent threads read adjacent elements
// (coalesced), but each thread adds a whole column: lower-matvec splits
// the sum over threadIdx.y.
#include <cuda_runtime.h>

#include "mvc.h"

// y = A^T t, a thread per column, the sum in the output (atax's second kernel)
#pragma astra optimize
#pragma astra shapes(nx=37, ny=45) shapes(nx=70, ny=19) shapes(nx=5, ny=200) shapes(nx=203, ny=33) buffers(a[nx*ny], t[nx], y[ny]) outputs(y)
#pragma astra launch(grid=(ny + 63) / 64, block=64)
__global__ void mvc__cols(int nx, int ny, const float *a, const float *t, float *y)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < ny) {
		y[j] = 0;
		for (int i = 0; i < nx; i++)
			y[j] += a[i * ny + j] * t[i];
	}
}

// two sums of one walk, each from the value the output held, then both
// combined (gesummv's shape, its matrices read by columns)
#pragma astra optimize
#pragma astra shapes(n=37) shapes(n=100) buffers(a[n*n], b[n*n], x[n], tmp[n], y[n]) outputs(tmp, y) scalars(alpha=1.5f, beta=0.5f)
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void mvc__two(int n, float alpha, float beta, const float *a, const float *b, const float *x, float *tmp, float *y)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= n)
		return;
	for (int i = 0; i < n; i++) {
		tmp[j] = a[i * n + j] * x[i] + tmp[j];
		y[j] = b[i * n + j] * x[i] + y[j];
	}
	y[j] = alpha * tmp[j] + beta * y[j];
}

// double, the running sum in a register from the output's value, a scalar
// factor in the terms (mvt's second kernel, gemver's x update)
#pragma astra optimize
#pragma astra shapes(n=33) shapes(n=71) buffers(a[n*n], y2[n], x2[n]) outputs(x2) scalars(beta=1.25)
#pragma astra launch(grid=(n + 31) / 32, block=32)
__global__ void mvc__dbl(int n, double beta, const double *a, const double *y2, double *x2)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < n) {
		double s = x2[j];
		for (int i = 0; i < n; i++)
			s = s + beta * a[i * n + j] * y2[i];
		x2[j] = s;
	}
}

// the sizes and the element type macros of a header, no scalar parameter
// (PolyBench's own form: bicg's first kernel): the variant's grid cannot
// name the rows
#pragma astra optimize
#pragma astra shapes(one=1) buffers(a[MVC_M*MVC_N], r[MVC_M], s[MVC_N]) outputs(s)
#pragma astra launch(grid=(MVC_N + 255) / 256, block=256)
__global__ void mvc__macro(DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *s)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < MVC_N) {
		s[j] = 0;
		for (int i = 0; i < MVC_M; i++)
			s[j] = s[j] + r[i] * a[i * MVC_N + j];
	}
}
