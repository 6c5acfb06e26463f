#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#pragma astra optimize
__global__ void scale(float *out, const float *in, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a * in[i];
}

/*
 * ./prog N...: one launch per N over one pooled allocation; after each,
 * the program reads the launch's error, except after a launch written !N
 * (an error the program ignores stays pending).
 */
int main(int argc, char **argv)
{
	float *pool = nullptr;
	int max = 4096;
	/* Fails without a GPU; the program ignores it, as programs do. */
	cudaMalloc(&pool, 2 * max * sizeof(float));
	for (int r = 1; r < argc; r++) {
		bool ignore = argv[r][0] == '!';
		int n = atoi(argv[r] + ignore);
		scale<<<(n + 255) / 256, 256>>>(pool + max, pool, 2.0f, n);
		if (ignore)
			continue;
		/* The launch's error is the program's: the recorder must leave it for this call. */
		cudaError_t e = cudaGetLastError();
		printf("launch %d (n=%d): %s\n", r, n, e == cudaSuccess ? "ok" : "error");
	}
	return 0;
}
