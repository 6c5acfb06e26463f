#pragma astra launch(grid=(n + 31) / 32, block=32)
static __global__ void __launch_bounds__(32) s_k(float *x, int n) { int i = blockIdx.x * 32 + threadIdx.x; if (i < n) x[i] += 1.0f; }
