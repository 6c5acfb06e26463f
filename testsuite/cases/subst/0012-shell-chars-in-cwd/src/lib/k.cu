#include <cstdio>
#include "h.cuh"
#include "../top.cuh"

#pragma astra optimize
#pragma astra shapes(n=100) buffers(x[n]) outputs(x)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * FACTOR;
}

int main()
{
	printf("%s %s %s %s\n", __FILE__, __BASE_FILE__, h_file, top_file);
	return 0;
}
