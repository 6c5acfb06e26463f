/*
 * Style: a block per row with BLOCK_SIZE as a macro, the shared-memory
 * tree reduction written with a literal start (BLOCK_SIZE / 2) under
 * `#pragma unroll`, `if` blocks around the work instead of returns.
 * Computes: RMSNorm of each row of [rows, cols] with a weight, fp32.
 * Flags: none
 * Expect: warp-reduce vectorize fastmath
 */
#include <cuda_runtime.h>

#define BLOCK_SIZE 512

#pragma astra optimize noalias
#pragma astra shapes(rows=4096, cols=8192) shapes(rows=1024, cols=4096) shapes(rows=5, cols=1003) shapes(rows=1, cols=2)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols]) outputs(out)
#pragma astra launch(grid=rows, block=BLOCK_SIZE)
#pragma astra scalars(eps=1e-6f) flops(4*rows*cols)
__global__ void rmsnorm_tree(float *out, const float *x, const float *w, float eps, int rows, int cols)
{
	__shared__ float partial[BLOCK_SIZE];
	int row = blockIdx.x;
	int tid = threadIdx.x;
	float acc = 0.0f;
	if (row < rows) {
		for (int j = tid; j < cols; j += BLOCK_SIZE) {
			float v = x[row * cols + j];
			acc += v * v;
		}
	}
	partial[tid] = acc;
	__syncthreads();
#pragma unroll
	for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
		if (tid < s)
			partial[tid] += partial[tid + s];
		__syncthreads();
	}
	if (row < rows) {
		float inv = 1.0f / sqrtf(partial[0] / cols + eps);
		for (int j = tid; j < cols; j += BLOCK_SIZE)
			out[row * cols + j] = x[row * cols + j] * inv * w[j];
	}
}
