/* Wrong: the original's code, then it reuses its input as scratch space
 * (its own output is still right). */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra launch(grid=(tokens*d + 255)/256, block=256)
template <typename T>
__global__ void silu_and_mul(T *out, const T *input, int tokens, int d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= tokens * d)
		return;
	int t = i / d;
	int j = i % d;
	float gate = (float)input[t * 2 * d + j];
	float up = (float)input[t * 2 * d + d + j];
	out[i] = (T)(gate / (1.0f + expf(-gate)) * up);
	const_cast<T *>(input)[t * 2 * d + j] = (T)0.0f;
}
