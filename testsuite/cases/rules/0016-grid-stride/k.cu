#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(n=1000000) shapes(n=2200003) shapes(n=1001)
#pragma astra buffers(out[n], x[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra types(T=__nv_bfloat16)
template <typename T>
__global__ void relu(T *out, const T *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = (float)x[i];
	out[i] = (T)(v > 0.0f ? v : 0.0f);
}
