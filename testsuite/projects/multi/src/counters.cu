#include "vecops.cuh"

__device__ unsigned long long g_launches;

unsigned long long launches(void)
{
	unsigned long long v = 0;
	cudaMemcpyFromSymbol(&v, g_launches, sizeof(v));
	return v;
}
