// style: block-per-row rmsnorm, a WARP_SIZE macro, the tree in a helper with a template-free shared buffer
// expect: warp-reduce vectorize
#define NUM_THREADS 256

__device__ __forceinline__ float block_reduce(float val)
{
	__shared__ float shm[NUM_THREADS];
	shm[threadIdx.x] = val;
	__syncthreads();
	for (int offset = NUM_THREADS / 2; offset > 0; offset /= 2) {
		if (threadIdx.x < offset)
			shm[threadIdx.x] += shm[threadIdx.x + offset];
		__syncthreads();
	}
	return shm[0];
}

#pragma astra shapes(rows=64, cols=4096) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=rows, block=256)
#pragma astra scalars(eps=1e-6f)
#pragma astra range(x: -2 .. 2)
#pragma astra noalias
__global__ void rmsnorm_block(float *out, const float *x, const float *w, float eps, int rows, int cols)
{
	const float *xr = x + blockIdx.x * cols;
	float acc = 0.f;
	for (int k = threadIdx.x; k < cols; k += NUM_THREADS)
		acc += xr[k] * xr[k];
	float total = block_reduce(acc);
	float scale = rsqrtf(total / cols + eps);
	for (int k = threadIdx.x; k < cols; k += NUM_THREADS)
		out[blockIdx.x * cols + k] = xr[k] * scale * w[k];
}
