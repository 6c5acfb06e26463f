/*
 * Style: large dynamic shared memory: the whole input vector staged in
 * `extern __shared__ float xs[]` (64 KB at K = 16384, so the caller sets
 * cudaFuncAttributeMaxDynamicSharedMemorySize), then a thread per output
 * row.
 * Computes: y = A x for an fp32 [M, K] matrix (a GEMV at batch size one).
 * THREAD-PER-ROW
 * Flags: none
 * Expect: warp-per-row vectorize
 */
#include <cuda_runtime.h>

#pragma astra optimize noalias
#pragma astra shapes(M=8192, K=16384) shapes(M=2048, K=4096) shapes(M=33, K=1003) shapes(M=1, K=1)
#pragma astra buffers(y[M], A[M*K], x[K]) outputs(y)
#pragma astra launch(grid=(M + 255) / 256, block=256, shmem=K * sizeof(float))
#pragma astra tolerance(rtol=1e-4, atol=1e-4) flops(2*M*K)
__global__ void gemv_smem(float *y, const float *A, const float *x, int M, int K)
{
	extern __shared__ float xs[];
	for (int k = threadIdx.x; k < K; k += blockDim.x)
		xs[k] = x[k];
	__syncthreads();
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < M) {
		const float *a = A + (size_t)row * K;
		float acc = 0.0f;
		for (int k = 0; k < K; k++)
			acc += a[k] * xs[k];
		y[row] = acc;
	}
}
