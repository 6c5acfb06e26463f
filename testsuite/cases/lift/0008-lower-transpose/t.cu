// The naive transpose written three ways (issue 27): each lifts to
// `out[c,r] = in[r,c]`, and lower-transpose generates it again through
// 32x32 shared tiles.  Sizes: odd, a single row, a single column, tiles
// that do not fill the matrix.
#include <cuda_runtime.h>

// 1. The textbook 2-D grid, an `if` block, no early return (the form the
// rule transpose-tile declines).
#pragma astra optimize
#pragma astra shapes(rows=67, cols=33) shapes(rows=1, cols=5) shapes(rows=5, cols=1) shapes(rows=64, cols=96)
#pragma astra buffers(out[rows*cols], in[rows*cols]) outputs(out) tolerance(rtol=0, atol=0)
#pragma astra launch(grid=dim3((cols + 15) / 16, (rows + 15) / 16), block=dim3(16, 16))
__global__ void tr__if(float *out, const float *in, int rows, int cols)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < cols && y < rows)
		out[x * rows + y] = in[y * cols + x];
}

// 2. A flat index split by `/` and `%`, an early return.
#pragma astra optimize
#pragma astra shapes(rows=67, cols=33) shapes(rows=1, cols=5) shapes(rows=5, cols=1) shapes(rows=64, cols=96)
#pragma astra buffers(out[rows*cols], in[rows*cols]) outputs(out) tolerance(rtol=0, atol=0)
#pragma astra launch(grid=(rows * cols + 255) / 256, block=256)
__global__ void tr__flat(float *out, const float *in, int rows, int cols)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= rows * cols)
		return;
	int r = i / cols, c = i % cols;
	out[c * rows + r] = in[i];
}

// 3. 2-D, an early return on either bound, the row from y, a scale on the way.
#pragma astra optimize
#pragma astra shapes(rows=67, cols=33) shapes(rows=1, cols=5) shapes(rows=5, cols=1) shapes(rows=64, cols=96)
#pragma astra buffers(out[rows*cols], in[rows*cols]) outputs(out) scalars(alpha=0.5f)
#pragma astra launch(grid=dim3((cols + 31) / 32, (rows + 7) / 8), block=dim3(32, 8))
__global__ void tr__scaled(float *out, const float *in, float alpha, int rows, int cols)
{
	const int col = blockIdx.x * blockDim.x + threadIdx.x;
	const int row = blockIdx.y * blockDim.y + threadIdx.y;
	if (row >= rows || col >= cols)
		return;
	out[(size_t)col * rows + row] = alpha * in[(size_t)row * cols + col];
}

// Not a transpose: a copy.  lower-transpose declines it.
#pragma astra optimize
#pragma astra shapes(rows=67, cols=33) buffers(out[rows*cols], in[rows*cols]) outputs(out)
#pragma astra launch(grid=dim3((cols + 15) / 16, (rows + 15) / 16), block=dim3(16, 16))
__global__ void copy__2d(float *out, const float *in, int rows, int cols)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < cols && y < rows)
		out[y * cols + x] = in[y * cols + x];
}
