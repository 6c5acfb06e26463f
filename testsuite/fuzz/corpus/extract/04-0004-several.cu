// Several kernels in one TU: each pragma block belongs to the function
// right below it; comments and blank lines may sit in between.
__device__ float relu(float v) { return v > 0 ? v : 0; }
__device__ float gelu(float v) { return 0.5f * v * (1.0f + tanhf(0.79788456f * v)); }

#pragma astra shapes(n=4096)
#pragma astra buffers(y[n], x[n]) outputs(y) launch(grid=(n + 127) / 128, block=128)

// Rectified linear unit.
__global__ void k_relu(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = relu(x[i]);
}

#pragma astra shapes(n=4096) buffers(y[n], x[n]) outputs(y)
/* launch geometry on its own line */
#pragma astra launch(grid=(n + 127) / 128, block=128)
__global__ void k_gelu(float *y, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = gelu(x[i]);
}

// Switched off: listed, never optimized.
#pragma astra off
#pragma astra shapes(n=1) buffers(y[n]) outputs(y) launch(grid=1, block=1)
__global__ void k_off(float *y, int n) { y[0] = n; }

__global__ void k_plain(float *y) { y[0] = 1; }

#pragma astra optimize
int not_a_kernel(int x) { return x; }

#pragma astra optimize
__global__ void k_declared(float *y);

__global__ void k_declared(float *y) { y[0] = 2; }

struct S {
#pragma astra optimize
	int member;
};

__global__ void k_inside(float *y)
{
#pragma astra optimize
	y[0] = 3;
}

#pragma astra shapes(n=8) buffers(y[n], x[n]) outputs(y) launch(grid=1, block=n)
__global__ void k_relu_again(float *y, const float *x, int n) { y[threadIdx.x] = relu(x[threadIdx.x]); }
