// Element-wise maps of a 2-D space, written as PolyBench's gemver update
// and correlation's centring (a thread per element of a 2-D grid),
// cuda-samples' tiled copy (a tile's rows per thread) and the jacobi-2d
// and fdtd-2d updates (inputs read at places shifted along the row), from
// scratch here.  Sizes that are not multiples of 4 put groups of columns
// across a row's end; the emulator's runs one element past the aligned
// start make every 4-element place misaligned.
#include <cuda_runtime.h>

// an update in place from vectors per row and per column (gemver's first kernel)
#pragma astra optimize
#pragma astra shapes(n=37) shapes(n=64) shapes(n=9) buffers(a[n*n], u1[n], v1[n], u2[n], v2[n]) outputs(a)
#pragma astra launch(grid=dim3((n + 31) / 32, (n + 7) / 8), block=dim3(32, 8))
__global__ void mp__update(int n, float *a, const float *u1, const float *v1, const float *u2, const float *v2)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < n && j < n)
		a[i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];
}

// centring and scaling by column, an early return (correlation's reduce_kernel)
#pragma astra optimize
#pragma astra shapes(m=45, n=37) shapes(m=8, n=20) buffers(data[m*n], mean[m], sd[m]) outputs(data)
#pragma astra range(sd: 0.5 .. 2)
#pragma astra launch(grid=dim3((m + 31) / 32, (n + 7) / 8), block=dim3(32, 8))
__global__ void mp__center(int m, int n, float *data, const float *mean, const float *sd)
{
	const int j = blockIdx.x * blockDim.x + threadIdx.x;
	const int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i >= n || j >= m)
		return;
	data[i * m + j] = (data[i * m + j] - mean[j]) / (sqrtf(3.0f) * sd[j]);
}

// a copy by tiles of 32 x 32, each thread 4 of a tile's rows (cuda-samples' copy)
#define MP_TILE 32
#define MP_ROWS 8
#pragma astra optimize
#pragma astra shapes(w=64, h=96) shapes(w=96, h=32) buffers(out[w*h], in[w*h]) outputs(out)
#pragma astra launch(grid=dim3(w / MP_TILE, h / MP_TILE), block=dim3(MP_TILE, MP_ROWS))
__global__ void mp__tiles(float *out, const float *in, int w, int h)
{
	int x = blockIdx.x * MP_TILE + threadIdx.x;
	int y = blockIdx.y * MP_TILE + threadIdx.y;
	int index = x + w * y;
	for (int i = 0; i < MP_TILE; i += MP_ROWS)
		out[index + i * w] = in[index + i * w];
}

// the interior from neighbours along the row and a conditional read, double
#pragma astra optimize
#pragma astra shapes(nx=37, ny=45) shapes(nx=12, ny=70) buffers(ex[nx*ny], hz[nx*ny], m[nx*ny]) outputs(ex)
#pragma astra launch(grid=dim3((ny + 31) / 32, (nx + 7) / 8), block=dim3(32, 8))
__global__ void mp__shift(int nx, int ny, double *ex, const double *hz, const double *m)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < nx && j > 0 && j < ny)
		ex[i * ny + j] = ex[i * ny + j] - 0.5 * (hz[i * ny + j] - hz[i * ny + j - 1]) + (m[i * ny + j] > 0.0 ? hz[i * ny + j + 1 - 1] : 0.0);
}

// a flat grid-stride loop over a fixed grid, in place (cuda-samples' modulate, from scratch)
#pragma astra optimize
#pragma astra shapes(n=1003) shapes(n=7) shapes(n=1) shapes(n=4096) buffers(a[n], b[n]) outputs(a)
#pragma astra launch(grid=3, block=64)
__global__ void mp__flat(float *a, const float *b, int n)
{
	const int stride = blockDim.x * gridDim.x;
	const float q = 1.0f / (float)n;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		a[i] *= b[i] * q;
}

// a thread per element from its neighbours, the ends left alone (a 1-D jacobi step)
#pragma astra optimize
#pragma astra shapes(n=1001) shapes(n=6) shapes(n=3) buffers(in[n], out[n]) outputs(out)
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void mp__flat3(int n, const float *in, float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1)
		out[i] = 0.25f * (in[i - 1] + 2.0f * in[i] + in[i + 1]);
}

// a flat map through a function-pointer template parameter (a call, not a conversion)
__device__ float mp_affine(float x) { return 2.0f * x + 1.0f; }
#pragma astra optimize
#pragma astra types(F=mp_affine)
#pragma astra shapes(n=1001) shapes(n=5) buffers(out[n], x[n]) outputs(out)
#pragma astra launch(grid=(n + 127) / 128, block=128)
template <float (*F)(float)>
__global__ void mp__fnptr(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = F(x[i]) * x[i];
}

// float locals set from double literals hold floats: the map computes with
// (float)0.1, bit for bit what the original does (a tolerance of 0)
#pragma astra optimize
#pragma astra shapes(n=1003) buffers(out[n], x[n]) outputs(out) tolerance(out: rtol=0, atol=0)
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void mp__coef(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float c1, c2;
	c1 = +0.1;
	c2 = -0.7;
	const float c3 = 1e-3;
	if (i < n)
		out[i] = c1 * x[i] + c2 * x[i] * x[i] + c3;
}

// not a map along the row: a transpose (lower-transpose's)
#pragma astra optimize
#pragma astra shapes(n=37) buffers(a[n*n], b[n*n]) outputs(b)
#pragma astra launch(grid=dim3((n + 31) / 32, (n + 7) / 8), block=dim3(32, 8))
__global__ void no__transpose(int n, const float *a, float *b)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < n && j < n)
		b[j * n + i] = a[i * n + j];
}

// not lowered: a gather through an int index among float buffers (a variant's values are of one type)
#pragma astra optimize
#pragma astra shapes(n=37) buffers(a[n*n], idx[n*n], b[n*n]) outputs(b) range(idx: 0 .. 1368)
#pragma astra launch(grid=dim3((n + 31) / 32, (n + 7) / 8), block=dim3(32, 8))
__global__ void no__gather(int n, const float *a, const int *idx, float *b)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < n && j < n)
		b[i * n + j] = a[idx[i * n + j]];
}

// not a map: a neighbour's output read (an update in place along the row)
#pragma astra optimize
#pragma astra shapes(n=37) buffers(a[n*n]) outputs(a)
#pragma astra launch(grid=dim3((n + 31) / 32, (n + 7) / 8), block=dim3(32, 8))
__global__ void no__neighbour(int n, float *a)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < n && j > 0 && j < n)
		a[i * n + j] = a[i * n + j - 1] * 0.5f;
}

// not a map: a flat scatter through an index
#pragma astra optimize
#pragma astra shapes(n=37) buffers(a[n], idx[n], b[n]) outputs(b) range(idx: 0 .. 36)
#pragma astra launch(grid=(n + 63) / 64, block=64)
__global__ void no__scatter(int n, const float *a, const int *idx, float *b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		b[idx[i]] = a[i];
}
