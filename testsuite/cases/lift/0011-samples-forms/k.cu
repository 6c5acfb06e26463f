// Forms of NVIDIA's cuda-samples that the parser and the lifter read
// (issue 27; kernels of our own): a template struct converted to the
// dynamic shared array (`T *p = SharedMemory<T>()`), cooperative groups'
// barriers (`cg::sync(block)`, `block.sync()`), a type the front end does
// not know (`uint` of a system header) in a shared declaration, a loop
// stepping two variables.  The row sums lift as their twins written a
// thread per row; a block's partial sums stored per block lift as a row
// per block, with a tree that halves or doubles (lift/0013 runs them);
// the rest is not lifted, each with its reason.
#include <cooperative_groups.h>
#include <sys/types.h>

namespace cg = cooperative_groups;

template <class T> struct SharedMemory {
	__device__ inline operator T *()
	{
		extern __shared__ unsigned char astra_test_dyn[];
		return reinterpret_cast<T *>(astra_test_dyn);
	}
};

// 1. A row sum: a block per row, the dynamic shared array through the
// struct, cooperative groups' barriers; its twin a thread per row.
#pragma astra optimize
#pragma astra types(T=float)
#pragma astra shapes(rows=7, cols=300) buffers(out[rows], in[rows*cols]) outputs(out)
#pragma astra launch(grid=rows, block=256, shmem=256 * sizeof(float))
template <class T> __global__ void rs__cg(T *out, const T *in, int cols)
{
	cg::thread_block blk = cg::this_thread_block();
	T *part = SharedMemory<T>();
	const int row = blockIdx.x;
	T acc = 0;
	for (int j = threadIdx.x; j < cols; j += blockDim.x)
		acc += in[row * cols + j];
	part[threadIdx.x] = acc;
	cg::sync(blk);
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			part[threadIdx.x] += part[threadIdx.x + s];
		blk.sync();
	}
	if (threadIdx.x == 0)
		out[row] = part[0];
}

#pragma astra optimize
#pragma astra shapes(rows=7, cols=300) buffers(out[rows], in[rows*cols]) outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
__global__ void rs__thread(float *out, const float *in, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += in[r * cols + c];
	out[r] = s;
}

// 2. The same in `uint`, declared shared with a type only a system header
// names; its twin a thread per row.
#pragma astra optimize
#pragma astra shapes(rows=7, cols=300) buffers(out[rows], in[rows*cols]) outputs(out)
#pragma astra launch(grid=rows, block=256)
__global__ void ru__block(uint *out, const uint *in, uint cols)
{
	cg::thread_block blk = cg::this_thread_block();
	__shared__ uint part[256];
	const uint row = blockIdx.x;
	uint acc = 0;
	for (uint j = threadIdx.x; j < cols; j += 256)
		acc += in[row * cols + j];
	part[threadIdx.x] = acc;
	for (uint s = 128; s > 0; s >>= 1) {
		cg::sync(blk);
		if (threadIdx.x < s)
			part[threadIdx.x] += part[threadIdx.x + s];
	}
	if (threadIdx.x == 0)
		out[row] = part[0];
}

#pragma astra optimize
#pragma astra shapes(rows=7, cols=300) buffers(out[rows], in[rows*cols]) outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
__global__ void ru__thread(uint *out, const uint *in, uint rows, uint cols)
{
	uint r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows) {
		uint s = 0;
		for (uint c = 0; c < cols; c++)
			s += in[r * cols + c];
		out[r] = s;
	}
}

// 3. A block's partial sum stored per block (a first pass), with a tree
// that halves and one whose stride doubles: a row per block.  Not
// lifted: a barrier of a warp's tile, a member function, a loop stepping
// two variables.
#pragma astra optimize
#pragma astra types(T=float)
#pragma astra shapes(n=1000) buffers(x[n], part[(n + 255) / 256]) outputs(part)
#pragma astra launch(grid=(n + 255) / 256, block=256, shmem=256 * sizeof(float))
template <class T> __global__ void part__halving(T *part, const T *x, unsigned n)
{
	cg::thread_block blk = cg::this_thread_block();
	T *sh = SharedMemory<T>();
	unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
	sh[t] = i < n ? x[i] : 0;
	cg::sync(blk);
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (t < s)
			sh[t] += sh[t + s];
		cg::sync(blk);
	}
	if (t == 0)
		part[blockIdx.x] = sh[0];
}

#pragma astra optimize
#pragma astra types(T=float)
#pragma astra shapes(n=1000) buffers(x[n], part[(n + 255) / 256]) outputs(part)
#pragma astra launch(grid=(n + 255) / 256, block=256, shmem=256 * sizeof(float))
template <class T> __global__ void part__doubling(T *part, const T *x, unsigned n)
{
	cg::thread_block blk = cg::this_thread_block();
	T *sh = SharedMemory<T>();
	unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
	sh[t] = i < n ? x[i] : 0;
	cg::sync(blk);
	for (unsigned s = 1; s < blockDim.x; s <<= 1) {
		if ((t & (2 * s - 1)) == 0)
			sh[t] += sh[t + s];
		cg::sync(blk);
	}
	if (t == 0)
		part[blockIdx.x] = sh[0];
}

#pragma astra optimize
#pragma astra shapes(n=1000) buffers(y[n], x[n]) outputs(y)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void no__warp_sync(float *y, const float *x, int n)
{
	cg::thread_block blk = cg::this_thread_block();
	cg::thread_block_tile<32> w32 = cg::tiled_partition<32>(blk);
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	cg::sync(w32);
	if (i < n)
		y[i] = x[i];
}

#pragma astra optimize
#pragma astra shapes(n=1000) buffers(y[n], x[n]) outputs(y)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void no__rank(float *y, const float *x, int n)
{
	cg::thread_block blk = cg::this_thread_block();
	int i = blockIdx.x * blockDim.x + blk.thread_rank();
	if (i < n)
		y[i] = x[i];
}

#pragma astra optimize
#pragma astra shapes(n=64) buffers(c[n*n], a[n*n], b[n*n]) outputs(c)
#pragma astra launch(grid=dim3(n / 16, n / 16), block=dim3(16, 16))
__global__ void no__two_steps(float *c, const float *a, const float *b, int n)
{
	float acc = 0;
	int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
	for (int p = row * n, q = col; p < row * n + n; p += 1, q += n)
		acc += a[p] * b[q];
	c[row * n + col] = acc;
}
