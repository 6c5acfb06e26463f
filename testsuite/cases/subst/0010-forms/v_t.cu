#pragma astra launch(grid=(n + 31) / 32, block=32)
template <typename T, int B>
__global__ void t_k(T *x, int n) { int i = blockIdx.x * 32 + threadIdx.x; if (i < n) x[i] += B; }
