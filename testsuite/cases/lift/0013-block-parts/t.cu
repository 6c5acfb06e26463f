// Values a block's threads pass to each other through shared memory
// (issue 27; the forms of cuda-samples' transposeCoalesced and reduce0-2,
// written here from scratch).  Each lifts to the same line as its twin
// written without shared memory.
#include <cuda_runtime.h>

#define SIDE 32
#define STEP 8
#define SQ 16

// 1. A staged transpose: 2-D tiles, a loop over the tile's rows, a tile
// read back transposed after a barrier; the same in a 2-D grid of square
// blocks (blockDim written out); their twin a thread per element.
#pragma astra optimize
#pragma astra shapes(h=64, w=96) shapes(h=32, w=32) shapes(h=96, w=64)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst) tolerance(rtol=0, atol=0)
#pragma astra launch(grid=dim3(w / SIDE, h / SIDE), block=dim3(SIDE, STEP))
__global__ void st__tiles(float *dst, const float *src, int w, int h)
{
	__shared__ float stage[SIDE][SIDE + 1];
	int gx = SIDE * blockIdx.x + threadIdx.x, gy = SIDE * blockIdx.y + threadIdx.y;
	for (int k = 0; k < SIDE; k += STEP)
		stage[threadIdx.y + k][threadIdx.x] = src[(gy + k) * w + gx];
	__syncthreads();
	gx = SIDE * blockIdx.y + threadIdx.x;
	gy = SIDE * blockIdx.x + threadIdx.y;
	for (int k = 0; k < SIDE; k += STEP)
		dst[(gy + k) * h + gx] = stage[threadIdx.x][threadIdx.y + k];
}

#pragma astra optimize
#pragma astra shapes(h=48, w=64) shapes(h=16, w=16)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst) tolerance(rtol=0, atol=0)
#pragma astra launch(grid=dim3(w / SQ, h / SQ), block=dim3(SQ, SQ))
__global__ void st__grid(float *dst, const float *src, int w, int h)
{
	__shared__ float t[SQ][SQ + 1];
	t[threadIdx.y][threadIdx.x] = 2.0f * src[(blockIdx.y * blockDim.y + threadIdx.y) * w + blockIdx.x * blockDim.x + threadIdx.x];
	__syncthreads();
	dst[(blockIdx.x * blockDim.x + threadIdx.y) * h + blockIdx.y * blockDim.y + threadIdx.x] = t[threadIdx.x][threadIdx.y];
}

#pragma astra optimize
#pragma astra shapes(h=48, w=64)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst)
#pragma astra launch(grid=dim3((w + 15) / 16, (h + 15) / 16), block=dim3(16, 16))
__global__ void st__twin(float *dst, const float *src, int w, int h)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < h && c < w)
		dst[c * h + r] = 2.0f * src[r * w + c];
}

// 2. A block's partial sums stored per block (a first pass): a tree that
// halves, trees whose stride doubles (modulo, and the index 2 * s * t),
// the block's size a template's type; their twin a block per row written
// with the row and column (the bound cuts the last row either way).
#pragma astra optimize
#pragma astra shapes(n=1000) shapes(n=384) shapes(n=1)
#pragma astra buffers(x[n], part[(n + 127) / 128]) outputs(part)
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void seg__halve(float *part, const float *x, int n)
{
	__shared__ float sh[128];
	int t = threadIdx.x, i = blockIdx.x * 128 + t;
	sh[t] = i < n ? x[i] : 0.0f;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (t < s)
			sh[t] += sh[t + s];
		__syncthreads();
	}
	if (t == 0)
		part[blockIdx.x] = sh[0];
}

#pragma astra optimize
#pragma astra types(T=float)
#pragma astra shapes(n=1000) shapes(n=384) shapes(n=1)
#pragma astra buffers(x[n], part[(n + 127) / 128]) outputs(part)
#pragma astra launch(grid=(n + 127) / 128, block=128, shmem=128 * sizeof(float))
template <class T> __global__ void seg__mod(T *part, const T *x, unsigned n)
{
	extern __shared__ float dyn[];
	unsigned t = threadIdx.x, i = blockDim.x * blockIdx.x + t;
	dyn[t] = (i < n) ? x[i] : 0;
	__syncthreads();
	for (unsigned s = 1; s < blockDim.x; s *= 2) {
		if ((t % (2 * s)) == 0)
			dyn[t] += dyn[t + s];
		__syncthreads();
	}
	if (t == 0)
		part[blockIdx.x] = dyn[0];
}

#pragma astra optimize
#pragma astra shapes(n=1000) shapes(n=384) shapes(n=1)
#pragma astra buffers(x[n], part[(n + 127) / 128]) outputs(part)
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void seg__index(float *part, const float *x, unsigned n)
{
	__shared__ float acc[128];
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	acc[threadIdx.x] = (i < n) ? x[i] : 0.0f;
	__syncthreads();
	for (unsigned s = 1; s < blockDim.x; s <<= 1) {
		unsigned at = 2 * s * threadIdx.x;
		if (at < blockDim.x)
			acc[at] = acc[at] + acc[at + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		part[blockIdx.x] = acc[0];
}

#pragma astra optimize
#pragma astra shapes(n=1000)
#pragma astra buffers(x[n], part[(n + 127) / 128]) outputs(part)
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void seg__twin(float *part, const float *x, int n)
{
	__shared__ float sh[128];
	int row = blockIdx.x, col = threadIdx.x;
	sh[col] = 128 * row + col < n ? x[row * 128 + col] : 0.0f;
	__syncthreads();
	for (int s = 64; s > 0; s >>= 1) {
		if (col < s)
			sh[col] += sh[col + s];
		__syncthreads();
	}
	if (col == 0)
		part[row] = sh[0];
}

// A first pass in double: it lifts, and lower-rows declines (its sums are
// float).
#pragma astra optimize
#pragma astra types(T=double)
#pragma astra shapes(n=1000)
#pragma astra buffers(x[n], part[(n + 127) / 128]) outputs(part)
#pragma astra launch(grid=(n + 127) / 128, block=128, shmem=128 * sizeof(double))
template <class T> __global__ void seg__double(T *part, const T *x, unsigned n)
{
	extern __shared__ double dd[];
	unsigned t = threadIdx.x, i = blockDim.x * blockIdx.x + t;
	dd[t] = (i < n) ? x[i] : 0;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (t < s)
			dd[t] += dd[t + s];
		__syncthreads();
	}
	if (t == 0)
		part[blockIdx.x] = dd[0];
}

// 3. Not lifted, each with its reason: the tile read without a barrier,
// a tile read at a neighbour's place, a tile two statements store, a
// transposed store that forgets the block's row offset (every block
// writes the same rows), a
// doubling tree on a block that is not a power of two, per-block sums
// of threads that return early.
#pragma astra optimize
#pragma astra shapes(h=48, w=64)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst)
#pragma astra launch(grid=dim3(w / SQ, h / SQ), block=dim3(SQ, SQ))
__global__ void no__race(float *dst, const float *src, int w, int h)
{
	__shared__ float t[SQ][SQ + 1];
	t[threadIdx.y][threadIdx.x] = src[(blockIdx.y * SQ + threadIdx.y) * w + blockIdx.x * SQ + threadIdx.x];
	dst[(blockIdx.x * SQ + threadIdx.y) * h + blockIdx.y * SQ + threadIdx.x] = t[threadIdx.x][threadIdx.y];
}

#pragma astra optimize
#pragma astra shapes(h=48, w=64)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst)
#pragma astra launch(grid=dim3(w / SQ, h / SQ), block=dim3(SQ, SQ))
__global__ void no__shift(float *dst, const float *src, int w, int h)
{
	__shared__ float t[SQ][SQ + 1];
	t[threadIdx.y][threadIdx.x] = src[(blockIdx.y * SQ + threadIdx.y) * w + blockIdx.x * SQ + threadIdx.x];
	__syncthreads();
	dst[(blockIdx.x * SQ + threadIdx.y) * h + blockIdx.y * SQ + threadIdx.x] = t[threadIdx.x][threadIdx.y + 1];
}

#pragma astra optimize
#pragma astra shapes(h=48, w=64)
#pragma astra buffers(dst[w*h], src[w*h], bias[w*h]) outputs(dst)
#pragma astra launch(grid=dim3(w / SQ, h / SQ), block=dim3(SQ, SQ))
__global__ void no__twice(float *dst, const float *src, const float *bias, int w, int h)
{
	__shared__ float t[SQ][SQ + 1];
	t[threadIdx.y][threadIdx.x] = src[(blockIdx.y * SQ + threadIdx.y) * w + blockIdx.x * SQ + threadIdx.x];
	__syncthreads();
	t[threadIdx.y][threadIdx.x] = bias[(blockIdx.y * SQ + threadIdx.y) * w + blockIdx.x * SQ + threadIdx.x];
	__syncthreads();
	dst[(blockIdx.x * SQ + threadIdx.y) * h + blockIdx.y * SQ + threadIdx.x] = t[threadIdx.x][threadIdx.y];
}

#pragma astra optimize
#pragma astra shapes(h=48, w=64)
#pragma astra buffers(dst[w*h], src[w*h]) outputs(dst)
#pragma astra launch(grid=dim3(w / SQ, h / SQ), block=dim3(SQ, SQ))
__global__ void no__offset(float *dst, const float *src, int w, int h)
{
	__shared__ float t[SQ][SQ + 1];
	t[threadIdx.y][threadIdx.x] = src[(blockIdx.y * SQ + threadIdx.y) * w + blockIdx.x * SQ + threadIdx.x];
	__syncthreads();
	dst[(blockIdx.x * SQ + threadIdx.y) * h + threadIdx.x] = t[threadIdx.x][threadIdx.y];
}

#pragma astra optimize
#pragma astra shapes(n=1000)
#pragma astra buffers(x[n], part[(n + 95) / 96]) outputs(part)
#pragma astra launch(grid=(n + 95) / 96, block=96)
__global__ void no__npow2(float *part, const float *x, int n)
{
	__shared__ float sh[96];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	sh[t] = i < n ? x[i] : 0.0f;
	__syncthreads();
	for (int s = 1; s < blockDim.x; s *= 2) {
		if (t % (2 * s) == 0)
			sh[t] += sh[t + s];
		__syncthreads();
	}
	if (t == 0)
		part[blockIdx.x] = sh[0];
}

#pragma astra optimize
#pragma astra shapes(n=1024)
#pragma astra buffers(x[n], part[n / 128]) outputs(part)
#pragma astra launch(grid=n / 128, block=128)
__global__ void no__early(float *part, const float *x, int n)
{
	__shared__ float sh[128];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	if (i >= n)
		return;
	sh[t] = x[i];
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (t < s)
			sh[t] += sh[t + s];
		__syncthreads();
	}
	if (t == 0)
		part[blockIdx.x] = sh[0];
}
