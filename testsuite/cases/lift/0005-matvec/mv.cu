// Matrix-vector products written a thread per output element, the shapes
// of the PolyBench kernels atax, bicg, gesummv and mvt, written here from
// scratch.  A thread per row i that walks A[i * n + j] over j reads 32
// places n elements apart in each warp (lowered by lower-matvec a warp
// per row); a thread per column j that walks A[i * n + j] over i reads
// adjacent elements (coalesced already: lowered with the sum split over
// threadIdx.y, lift/0009-matvec-cols).
#include <cuda_runtime.h>

#include "mv.h"

// y = A x, a thread per row, the sum in the output (atax's first kernel)
#pragma astra optimize
#pragma astra shapes(nx=37, ny=45) shapes(nx=70, ny=19) shapes(nx=5, ny=200) buffers(a[nx*ny], x[ny], t[nx]) outputs(t)
#pragma astra launch(grid=(nx + 63) / 64, block=64)
__global__ void mv__rows(int nx, int ny, const float *a, const float *x, float *t)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < nx) {
		t[i] = 0;
		for (int j = 0; j < ny; j++)
			t[i] += a[i * ny + j] * x[j];
	}
}

// y = A^T t, a thread per column: coalesced, a column per thread (atax's second kernel)
#pragma astra optimize
#pragma astra shapes(nx=37, ny=45) buffers(a[nx*ny], t[nx], y[ny]) outputs(y)
#pragma astra launch(grid=(ny + 63) / 64, block=64)
__global__ void mv__cols(int nx, int ny, const float *a, const float *t, float *y)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < ny) {
		y[j] = 0;
		for (int i = 0; i < nx; i++)
			y[j] += a[i * ny + j] * t[i];
	}
}

// two sums of one walk, each from the value the output held, then both
// combined (gesummv's shape)
#pragma astra optimize
#pragma astra shapes(n=37) shapes(n=100) buffers(a[n*n], b[n*n], x[n], tmp[n], y[n]) outputs(tmp, y) scalars(alpha=1.5f, beta=0.5f)
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void mv__two(int n, float alpha, float beta, const float *a, const float *b, const float *x, float *tmp, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	for (int j = 0; j < n; j++) {
		tmp[i] = a[i * n + j] * x[j] + tmp[i];
		y[i] = b[i * n + j] * x[j] + y[i];
	}
	y[i] = alpha * tmp[i] + beta * y[i];
}

// double, the running sum in a register from the output's value (mvt's shape)
#pragma astra optimize
#pragma astra shapes(n=33) shapes(n=64) buffers(a[n*n], y1[n], x1[n]) outputs(x1)
#pragma astra launch(grid=(n + 31) / 32, block=32)
__global__ void mv__dbl(int n, const double *a, const double *y1, double *x1)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		double s = x1[i];
		for (int j = 0; j < n; j++)
			s = s + a[i * n + j] * y1[j];
		x1[i] = s;
	}
}

// the sizes and the element type macros of a header, no scalar parameter
// (PolyBench's own form): the variant's grid cannot name the rows
#pragma astra optimize
#pragma astra shapes(one=1) buffers(a[MV_N*MV_M], x[MV_M], y[MV_N]) outputs(y)
#pragma astra launch(grid=(MV_N + 255) / 256, block=256)
__global__ void mv__macro(DATA_TYPE *a, DATA_TYPE *x, DATA_TYPE *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < MV_N) {
		y[i] = 0;
		for (int j = 0; j < MV_M; j++)
			y[i] += a[i * MV_M + j] * x[j];
	}
}

// a float sum that starts from the double literal 0.0 starts from zero
// (the lifter keeps casts of literals other types may not hold: not this one)
#pragma astra optimize
#pragma astra shapes(n=300, m=70) buffers(a[n*m], x[m], y[n]) outputs(y)
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void mv__zero(const float *a, const float *x, float *y, int n, int m)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float s = 0.0;
		for (int j = 0; j < m; j++)
			s += a[i * m + j] * x[j];
		y[i] = s;
	}
}
