/* Right: a block per row, its two reductions in dynamic shared memory
 * (extern __shared__, sized by the launch). */
#include <math.h>

#pragma astra launch(grid=rows, block=256, shmem=2 * 256 * sizeof(float))
__global__ void softmax(float *out, const float *x, int rows, int cols)
{
	extern __shared__ float red[]; /* [0, blockDim.x): maxima; then sums */
	const float *xr = x + (size_t)blockIdx.x * cols;
	float *outr = out + (size_t)blockIdx.x * cols;
	int tid = threadIdx.x, n = blockDim.x;
	float m = -INFINITY;
	for (int i = tid; i < cols; i += n)
		m = fmaxf(m, xr[i]);
	red[tid] = m;
	__syncthreads();
	for (int s = n / 2; s > 0; s /= 2) {
		if (tid < s)
			red[tid] = fmaxf(red[tid], red[tid + s]);
		__syncthreads();
	}
	m = red[0];
	float sum = 0.0f;
	for (int i = tid; i < cols; i += n)
		sum += expf(xr[i] - m);
	red[n + tid] = sum;
	__syncthreads();
	for (int s = n / 2; s > 0; s /= 2) {
		if (tid < s)
			red[n + tid] += red[n + tid + s];
		__syncthreads();
	}
	float inv = 1.0f / red[n];
	for (int i = tid; i < cols; i += n)
		outr[i] = expf(xr[i] - m) * inv;
}
