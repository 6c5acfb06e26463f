// stencil: a 3-point average on the GPU and on the CPU, compared by the
// program itself as PolyBench-ACC's programs do.
#include <cstdio>
#include <cmath>
#include <cuda_runtime.h>

#define N 4096

template <typename T>
__device__ T third(T v) { return v / (T)3; }

template <typename T>
__global__ void
avg3(T *out, const T *in, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1)
		out[i] = third(in[i - 1] + in[i] + in[i + 1]);
}

int main(void)
{
	static float in[N], out[N], ref[N];
	float *din, *dout;
	for (int i = 0; i < N; i++)
		in[i] = (float)(i % 13);
	if (cudaMalloc(&din, sizeof in) != cudaSuccess || cudaMalloc(&dout, sizeof out) != cudaSuccess) {
		fprintf(stderr, "stencil: no CUDA device\n");
		return 1;
	}
	cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
	cudaMemset(dout, 0, sizeof out);
	avg3<float><<<N / 256, 256>>>(dout, din, N);
	cudaDeviceSynchronize();
	cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
	int fail = 0;
	for (int i = 1; i < N - 1; i++) {
		ref[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
		if (fabsf(ref[i] - out[i]) > 1e-5f * fabsf(ref[i]) + 1e-6f)
			fail++;
	}
	printf("Non-Matching CPU-GPU Outputs Beyond Error Threshold of 0.05 Percent: %d\n", fail);
	return 0;
}
