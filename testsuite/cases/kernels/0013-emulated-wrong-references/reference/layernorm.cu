/* Wrong: the original with its shared array in dynamic shared memory, and
 * the launch gives it one float too few. */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra launch(grid=rows, block=256, shmem=255 * sizeof(float))
template <typename T>
__global__ void layernorm(T *out, const T *x, const T *w, const T *b, float eps,
			  int rows, int cols)
{
	extern __shared__ float red[];
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *outr = out + (size_t)blockIdx.x * cols;
	int tid = threadIdx.x;

	float sum = 0.0f;
	for (int i = tid; i < cols; i += blockDim.x)
		sum += (float)xr[i];
	red[tid] = sum;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (tid < s)
			red[tid] += red[tid + s];
		__syncthreads();
	}
	float mean = red[0] / cols;
	__syncthreads();

	float sq = 0.0f;
	for (int i = tid; i < cols; i += blockDim.x) {
		float d = (float)xr[i] - mean;
		sq += d * d;
	}
	red[tid] = sq;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (tid < s)
			red[tid] += red[tid + s];
		__syncthreads();
	}
	float rstd = 1.0f / sqrtf(red[0] / cols + eps);

	for (int i = tid; i < cols; i += blockDim.x)
		outr[i] = (T)(((float)xr[i] - mean) * rstd * (float)w[i] + (float)b[i]);
}
