// Stencils written a thread per element of a 2-D grid, the shapes of the
// PolyBench kernels jacobi-2d, convolution-2d and fdtd-2d, written here
// from scratch: each output reads an input at neighbouring places, the
// border rows and columns left alone by the guard.
#include <cuda_runtime.h>

// a 5-point average, the border untouched (jacobi-2d's first kernel)
#pragma astra optimize
#pragma astra shapes(n=37) shapes(n=70) shapes(n=9) buffers(a[n*n], b[n*n]) outputs(b)
#pragma astra launch(grid=dim3((n + 31) / 32, (n + 7) / 8), block=dim3(32, 8))
__global__ void st__jacobi(int n, const float *a, float *b)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
		b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] + a[(i + 1) * n + j] +
				       a[(i - 1) * n + j]);
}

// a 3 x 3 convolution with its weights, an early return (convolution-2d)
#pragma astra optimize
#pragma astra shapes(ni=37, nj=45) shapes(ni=20, nj=100) buffers(a[ni*nj], b[ni*nj]) outputs(b)
#pragma astra launch(grid=dim3((nj + 31) / 32, (ni + 7) / 8), block=dim3(32, 8))
__global__ void st__conv(int ni, int nj, const float *a, float *b)
{
	const int col = blockIdx.x * blockDim.x + threadIdx.x;
	const int row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row <= 0 || col <= 0 || row >= ni - 1 || col >= nj - 1)
		return;
	const float w11 = 0.25f, w12 = -0.5f, w13 = 0.75f, w21 = 0.125f, w22 = 0.5f, w23 = -0.375f;
	const float w31 = 0.625f, w32 = -0.875f, w33 = 0.0625f;
	b[row * nj + col] = w11 * a[(row - 1) * nj + col - 1] + w12 * a[(row - 1) * nj + col] +
			    w13 * a[(row - 1) * nj + col + 1] + w21 * a[row * nj + col - 1] + w22 * a[row * nj + col] +
			    w23 * a[row * nj + col + 1] + w31 * a[(row + 1) * nj + col - 1] +
			    w32 * a[(row + 1) * nj + col] + w33 * a[(row + 1) * nj + col + 1];
}

// an update in place from two fields read at shifted places, double
// (fdtd-2d's third kernel: the row strides differ)
#pragma astra optimize
#pragma astra shapes(nx=37, ny=45) shapes(nx=12, ny=70) buffers(ex[nx*(ny+1)], ey[(nx+1)*ny], hz[nx*ny]) outputs(hz)
#pragma astra launch(grid=dim3((ny + 31) / 32, (nx + 7) / 8), block=dim3(32, 8))
__global__ void st__fdtd(int nx, int ny, const double *ex, const double *ey, double *hz)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < nx - 1 && j < ny - 1)
		hz[i * ny + j] = hz[i * ny + j] - 0.7 * (ex[i * (ny + 1) + j + 1] - ex[i * (ny + 1) + j] +
							 ey[(i + 1) * ny + j] - ey[i * ny + j]);
}

// not a stencil: each output reads one place of the input
#pragma astra optimize
#pragma astra shapes(n=37) buffers(a[n*n], b[n*n]) outputs(b)
#pragma astra launch(grid=dim3((n + 31) / 32, (n + 7) / 8), block=dim3(32, 8))
__global__ void st__none(int n, const float *a, float *b)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < n && j < n)
		b[i * n + j] = 2.0f * a[i * n + j];
}
