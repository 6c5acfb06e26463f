#ifndef WALSH_KERNEL_CUH
#define WALSH_KERNEL_CUH
__global__ void modulate(float *d_A, const float *d_B, int N)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	int numThreads = blockDim.x * gridDim.x;
	float rcpN = 1.0f / (float)N;
	for (int pos = tid; pos < N; pos += numThreads)
		d_A[pos] *= d_B[pos] * rcpN;
}
#endif
