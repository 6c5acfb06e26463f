// Template kernels: type and non-type parameters, instantiations in the
// pragma, launches with template arguments.
#include <cuda_fp16.h>

template <typename T>
struct Acc {
	T v;
};

template <typename T>
__device__ T twice(T x)
{
	return x + x;
}

template <typename T, int VEC>
using Vec = T[VEC];

#pragma astra shapes(n=4096) shapes(n=1000)
#pragma astra buffers(out[n], in[n]) outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra types(T=float, VEC=4) types(T=__half, VEC=8) types(T=std::pair<int, int>, VEC=1)
#pragma astra tune(VEC: 1 2 4 8)
template <typename T, int VEC, class Op = Acc<T>>
__global__ void vec_copy(T *__restrict__ out, const T *__restrict__ in, int n)
{
	int i = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
	Acc<T> a;
	for (int v = 0; v < VEC && i + v < n; v++)
		out[i + v] = twice(in[i + v]);
}

// A template kernel without types(): a mistake.
#pragma astra shapes(n=1) buffers(out[n]) outputs(out) launch(grid=1, block=1)
template <typename T>
__global__ void fill(T *out, int n)
{
	out[0] = T(n);
}

void run(float *o, const float *i, __half *h, int n)
{
	vec_copy<float, 4><<<(n + 1023) / 1024, 256>>>(o, i, n);
	vec_copy<__half, 8, Acc<__half>><<<n / 2048, 256, 0>>>(h, h, n);
	::vec_copy<float, (4 > 2 ? 4 : 2)><<<1, 1>>>(o, i, n);
	fill<int><<<1, 1>>>((int *)o, n);
}
