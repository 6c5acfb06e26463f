// style: the early return written the other way round, in braces
// expect: elems-per-thread grid-stride
#include <cuda_fp16.h>

#pragma astra shapes(tokens=64, d=4096) shapes(tokens=3, d=1001)
#pragma astra buffers(out[tokens*d], input[tokens*2*d])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens*d + 255)/256, block=256)
#pragma astra range(input: -8 .. 8)
#pragma astra tolerance(out: rtol=1e-2, atol=1e-3)
#pragma astra noalias
#pragma astra types(T=__half)
template <typename T>
__global__ void silu_mul(T *out, const T *input, int tokens, int d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (tokens * d <= i) {
		return;
	}
	int t = i / d;
	int j = i % d;
	float gate = (float)input[t * 2 * d + j];
	float up = (float)input[t * 2 * d + d + j];
	out[i] = (T)(gate / (1.0f + expf(-gate)) * up);
}
