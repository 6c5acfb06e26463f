#include <cuda_runtime.h>

enum class Act { None, Relu };

__device__ float square(const float &x) { return x * x; }

#pragma astra shapes(n=7) buffers(out[n], x[n]) outputs(out) launch(grid=1, block=32)
#pragma astra types(T=float, N=4, A=Act::Relu, F=square, W=2)
template <typename T, int N, Act A, float (*F)(const float &), unsigned W = 8>
__global__ void k(T *out, const T *x, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = F(x[i]) * N * W + (A == Act::Relu ? 0.0f : 1.0f);
}
