#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(n=1000)
#pragma astra buffers(out[n], x[n], y[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra noalias
#pragma astra scalars(a=2.5f)
__global__ void axpy(float *out, const float *x, const float *__restrict__ y, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a * x[i] + y[i];
}
