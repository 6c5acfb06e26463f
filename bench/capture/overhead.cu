/*
 * overhead.cu - what a capture build costs per launch (bench/run-capture):
 * N launches of a tiny kernel at one shape (the steady state: a counter
 * and a lookup in the recorder), then N launches cycling through 32
 * shapes; host time per launch, with the GPU drained before and after.
 * Built once plainly and once as a capture build, the difference is the
 * recorder's cost.  Prints one JSON line.
 *   overhead [N]
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#pragma astra optimize
__global__ void tick(float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] += 1.0f;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200000;
	float *p;
	if (cudaMalloc((void **)&p, 4096 * sizeof(float)) != cudaSuccess) {
		fprintf(stderr, "overhead: no CUDA device\n");
		return 2;
	}
	cudaMemset(p, 0, 4096 * sizeof(float));
	for (int i = 0; i < 1000; i++) /* warm-up; the shapes' first launches are inspected here */
		tick<<<1 + i % 32, 128>>>(p, 128 * (1 + i % 32));
	cudaDeviceSynchronize();
	double t0 = now();
	for (int i = 0; i < n; i++)
		tick<<<1, 128>>>(p, 128);
	cudaDeviceSynchronize();
	double t1 = now();
	for (int i = 0; i < n; i++)
		tick<<<1 + i % 32, 128>>>(p, 128 * (1 + i % 32));
	cudaDeviceSynchronize();
	double t2 = now();
	printf("{\"launches\": %d, \"ns_per_launch_one_shape\": %.1f, \"ns_per_launch_32_shapes\": %.1f}\n", n,
	       (t1 - t0) * 1e9 / n, (t2 - t1) * 1e9 / n);
	cudaFree(p);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
