// Loop nests with reuse (issue 29 item 2), for the GPU: a 3 x 3 weighted
// stencil on the interior of a 2-D grid (PolyBench's convolution-2d
// shape, written here from scratch).  lower-stencil applies.
#include <cuda_runtime.h>

#pragma astra optimize
#pragma astra shapes(ni=37, nj=45) shapes(ni=8192, nj=8192) buffers(a[ni*nj], b[ni*nj]) outputs(b)
#pragma astra launch(grid=dim3((nj + 31) / 32, (ni + 7) / 8), block=dim3(32, 8))
__global__ void nest_stencil(int ni, int nj, const float *a, float *b)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i > 0 && i < ni - 1 && j > 0 && j < nj - 1)
		b[i * nj + j] = 0.25f * a[(i - 1) * nj + j - 1] - 0.5f * a[(i - 1) * nj + j] + 0.75f * a[(i - 1) * nj + j + 1] +
				0.125f * a[i * nj + j - 1] + 0.5f * a[i * nj + j] - 0.375f * a[i * nj + j + 1] +
				0.625f * a[(i + 1) * nj + j - 1] - 0.875f * a[(i + 1) * nj + j] + 0.0625f * a[(i + 1) * nj + j + 1];
}
