#pragma astra shapes(n=4) buffers(p[n]) outputs(p) launch(grid=1, block=n)
__global__ void good(float *p, int n) { p[threadIdx.x] = n; }

#pragma astra shapes(n=4) bufers(p[n]) outputs(p) launch(grid=1, block=n)
__global__ void typo(float *p, int n) { p[threadIdx.x] = n; }
