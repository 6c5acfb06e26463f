#define N_MAX 4096
__device__ float sq(float v) { return v * v; }

#pragma astra shapes(n=N_MAX) shapes(n=3) buffers(y[n], x[n]) outputs(y)
#pragma astra launch(grid=(n + 255) / 256, block=256) types(T=float) types(T=double)
#pragma astra scalars(a=2) range(x: -1 .. 1) tolerance(y: rtol=1e-5) tune(UNROLL: 1 4) flops(2 * n)
template <typename T>
__global__ void axsq(T *y, const T *x, T a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * sq(x[i]);
}

void go(float *y, const float *x, int n) { axsq<float><<<(n + 255) / 256, 256>>>(y, x, 2.0f, n); }
