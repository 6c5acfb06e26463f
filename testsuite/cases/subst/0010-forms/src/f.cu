#include <cstdio>
namespace ns {
#pragma astra shapes(n=64) buffers(x[n]) outputs(x) launch(grid=n, block=1)
static __global__ void __launch_bounds__(128) s_k(float *x, int n) { x[blockIdx.x] += 1.0f; }
}
extern "C" {
#pragma astra shapes(n=64) buffers(x[n]) outputs(x) launch(grid=n, block=1)
__global__ void c_k(float *x, int n) { x[blockIdx.x] += 2.0f; }
}
#pragma astra shapes(n=64) buffers(x[n]) outputs(x) launch(grid=n, block=1)
extern "C" __global__ void c2_k(float *x, int n) { x[blockIdx.x] += 3.0f; }
#pragma astra shapes(n=64) buffers(x[n]) outputs(x) launch(grid=n, block=1) types(T=float)
template <typename T, int B = 1>
__global__ void t_k(T *x, int n) { x[blockIdx.x] += B; }
void run(float *x, int n, cudaStream_t s) {
	ns::s_k<<<n, 1, 0, s>>>(x, n);
	c_k<<<n, 1>>>(x, n);
	c2_k<<<n, 1>>>(x, n);
	t_k<<<n, 1, 0, s>>>(x, n);
	t_k<float, 2><<<n, 1>>>(x, n);
}
