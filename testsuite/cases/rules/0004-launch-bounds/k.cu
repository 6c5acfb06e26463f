#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(n=1000)
#pragma astra buffers(out[n], x[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void scale(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 2.0f * x[i];
}
