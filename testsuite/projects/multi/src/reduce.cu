#include "vecops.cuh"

__device__ float block_sum(float v)
{
	__shared__ float s[256];
	s[threadIdx.x] = v;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k >>= 1) {
		if (threadIdx.x < k)
			s[threadIdx.x] += s[threadIdx.x + k];
		__syncthreads();
	}
	return s[0];
}

__global__ void sum(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float t = block_sum(i < n ? x[i] : 0.0f);
	if (threadIdx.x == 0)
		atomicAdd(out, t);
}

void launch_sum(const float *x, float *out, int n)
{
	sum<<<(n + 255) / 256, 256>>>(x, out, n);
}
