#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(tokens=64, d=4096) shapes(tokens=3, d=1001)
#pragma astra buffers(out[tokens * d], in[tokens * 2 * d])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens * d + 255) / 256, block=256)
#pragma astra types(T=__half)
template <typename T>
__global__ void glu(T *out, const T *in, int tokens, int d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= tokens * d)
		return;
	int t = i / d;
	int j = i % d;
	float g = (float)in[t * 2 * d + j];
	float u = (float)in[t * 2 * d + d + j];
	out[i] = (T)(g / (1.0f + expf(-g)) * u);
}
