// scale: y = a * x + b over n elements, written to out.txt (the output
// bench/apps/run compares).  Shaped to test the annotation insertion: a
// prototype before the definition, a comment and a string that name the
// kernel, and a second kernel whose name starts with the first's.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void scale_kernel(float *y, const float *x, float a, float b, int n);

/* scale_kernel(y, x, ...) is launched once below */
static const char *what = "scale_kernel(y, x)";

__global__ void scale_kernel(float *y, const float *x, float a, float b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + b;
}

__global__ void scale_kernel_twice(float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] *= 2.0f;
}

int main(void)
{
	const int n = 1 << 16;
	float *x, *y, *h = (float *)malloc(n * sizeof(float));
	for (int i = 0; i < n; i++)
		h[i] = (float)(i % 97) / 7.0f;
	if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) {
		fprintf(stderr, "scale: no CUDA device\n");
		return 1;
	}
	cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
	scale_kernel<<<(n + 255) / 256, 256>>>(y, x, 1.5f, 0.25f, n);
	scale_kernel_twice<<<(n + 255) / 256, 256>>>(y, n);
	cudaMemcpy(h, y, n * sizeof(float), cudaMemcpyDeviceToHost);
	FILE *f = fopen("out.txt", "w");
	for (int i = 0; i < n; i += 97)
		fprintf(f, "%.6f\n", h[i]);
	fclose(f);
	printf("%s: done\n", what);
	return 0;
}
