// Kernels in project headers: the header is parsed on its own, its kernels
// are listed with the header's name, and a header kernel may use a macro
// of the file that includes it.
#define TILE 32
#include "local.cuh"
#include <ops/transpose.cuh>
#include <cuda_runtime.h>

void run(float *o, const float *i, int n)
{
	transpose<<<dim3(n / TILE, n / TILE), dim3(TILE, 8)>>>(o, i, n);
	ops::scale2<<<n / 256, 256>>>(o, n);
}
