// 2-D tiles whose rows a thread covers by a loop (issue 27, the form of
// cuda-samples' transposes, written here from scratch): a block of
// SIDE x STEP threads takes a SIDE x SIDE tile, each thread its column
// and every STEP-th row of the tile.  Each lifts to the same line as its
// twin written a thread per element.
#include <cuda_runtime.h>

#define SIDE 32
#define STEP 8
#define ODD_STEP 12

// 1. The transpose, no bounds checks (sizes multiples of SIDE), and its
// twin: a 2-D grid, a thread per element, the same grid of tiles.
#pragma astra optimize
#pragma astra shapes(h=64, w=96) shapes(h=32, w=32) shapes(h=96, w=64)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst) tolerance(rtol=0, atol=0)
#pragma astra launch(grid=dim3(w / SIDE, h / SIDE), block=dim3(SIDE, STEP))
__global__ void tr__tiles(float *dst, const float *src, int w, int h)
{
	const int col = SIDE * blockIdx.x + threadIdx.x;
	const int row0 = threadIdx.y + SIDE * blockIdx.y;
	const int from = row0 * w + col, to = col * h + row0;
	for (int k = 0; k < SIDE; k += STEP)
		dst[to + k] = src[from + w * k];
}

#pragma astra optimize
#pragma astra shapes(h=64, w=96) shapes(h=32, w=32) shapes(h=96, w=64)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst) tolerance(rtol=0, atol=0)
#pragma astra launch(grid=dim3(w / SIDE, h / SIDE), block=dim3(SIDE, SIDE))
__global__ void tr__grid(float *dst, const float *src, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	dst[x * h + y] = src[y * w + x];
}

// 2. With bounds checks (any size: tiles cut by the edges), a scale on
// the way, the row written `y + k` inside the check; its twin checks
// with an early return.
#pragma astra optimize
#pragma astra shapes(h=67, w=33) shapes(h=1, w=5) shapes(h=5, w=1) shapes(h=64, w=96)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst) tolerance(rtol=0, atol=0) scalars(alpha=0.5f)
#pragma astra launch(grid=dim3((w + SIDE - 1) / SIDE, (h + SIDE - 1) / SIDE), block=dim3(SIDE, STEP))
__global__ void trs__tiles(float *dst, const float *src, float alpha, int w, int h)
{
	int x = blockIdx.x * SIDE + threadIdx.x;
	int y = blockIdx.y * SIDE + threadIdx.y;
#pragma unroll
	for (int k = 0; k < SIDE; k += STEP) {
		if (x < w && y + k < h)
			dst[x * h + (y + k)] = alpha * src[(y + k) * w + x];
	}
}

#pragma astra optimize
#pragma astra shapes(h=67, w=33) shapes(h=1, w=5) shapes(h=5, w=1) shapes(h=64, w=96)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst) tolerance(rtol=0, atol=0) scalars(alpha=0.5f)
#pragma astra launch(grid=dim3((w + 15) / 16, (h + 15) / 16), block=dim3(16, 16))
__global__ void trs__grid(float *dst, const float *src, float alpha, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= w || y >= h)
		return;
	dst[x * h + y] = src[y * w + x] * alpha;
}

// 3. A copy in tiles and its twin: not a transpose (lower-transpose declines).
#pragma astra optimize
#pragma astra shapes(h=64, w=96)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst)
#pragma astra launch(grid=dim3(w / SIDE, h / SIDE), block=dim3(SIDE, STEP))
__global__ void cp__tiles(float *dst, const float *src, int w, int h)
{
	int at = (blockIdx.y * SIDE + threadIdx.y) * w + blockIdx.x * SIDE + threadIdx.x;
	for (int k = 0; k < SIDE; k += STEP)
		dst[at + k * w] = src[at + k * w];
}

#pragma astra optimize
#pragma astra shapes(h=64, w=96)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst)
#pragma astra launch(grid=dim3(w / SIDE, h / SIDE), block=dim3(SIDE, SIDE))
__global__ void cp__grid(float *dst, const float *src, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	dst[y * w + x] = src[y * w + x];
}

// 4. Not lifted, each with its reason (a tile staged through shared
// memory: lift/0013): a tile whose height is
// not a multiple of the block's rows (rows would overlap), a shape that
// is not a multiple of the tile with no bounds check, the loop's row
// offset used without the tile's row (k alone).
#pragma astra optimize
#pragma astra shapes(h=96, w=96)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst)
#pragma astra launch(grid=dim3(w / SIDE, h / SIDE), block=dim3(SIDE, ODD_STEP))
__global__ void no__overlap(float *dst, const float *src, int w, int h)
{
	int x = blockIdx.x * SIDE + threadIdx.x, y = blockIdx.y * SIDE + threadIdx.y;
	for (int k = 0; k < SIDE; k += ODD_STEP)
		dst[x * h + y + k] = src[(y + k) * w + x];
}

#pragma astra optimize
#pragma astra shapes(h=64, w=96) shapes(h=40, w=96)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst)
#pragma astra launch(grid=dim3(w / SIDE, h / SIDE), block=dim3(SIDE, STEP))
__global__ void no__ragged(float *dst, const float *src, int w, int h)
{
	int x = blockIdx.x * SIDE + threadIdx.x, y = blockIdx.y * SIDE + threadIdx.y;
	for (int k = 0; k < SIDE; k += STEP)
		dst[x * h + y + k] = src[(y + k) * w + x];
}

#pragma astra optimize
#pragma astra shapes(h=64, w=96)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst)
#pragma astra launch(grid=dim3(w / SIDE, h / SIDE), block=dim3(SIDE, STEP))
__global__ void no__offset(float *dst, const float *src, int w, int h)
{
	int x = blockIdx.x * SIDE + threadIdx.x, y = blockIdx.y * SIDE + threadIdx.y;
	for (int k = 0; k < SIDE; k += STEP)
		dst[x * h + y] = src[k * w + x];
}
