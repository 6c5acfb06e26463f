#pragma astra launch(grid=(n + 31) / 32, block=32)
extern "C" __global__ void c2_k(float *x, int n) { int i = blockIdx.x * 32 + threadIdx.x; if (i < n) x[i] += 3.0f; }
