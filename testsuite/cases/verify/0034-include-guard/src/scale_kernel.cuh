/* A header of kernels with an include guard, and the kernel inside
 * `#ifdef __CUDACC__` too: both #endifs come after the kernel (the way
 * cuda-samples' reduction_kernel.cu and fastWalshTransform_kernel.cuh are
 * written). */
#ifndef SCALE_KERNEL_CUH
#define SCALE_KERNEL_CUH

#  if defined(__CUDACC__)
#pragma astra shapes(n=4096, a=1.5f) shapes(n=1000, a=0.25f)
#pragma astra buffers(x[n], y[n])
#pragma astra outputs(y)
#pragma astra launch(grid=(n+255)/256, block=256)
__global__ void scale_sq(const float *x, float *y, int n, float a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] * x[i];
}
#  endif /* __CUDACC__ */

__host__ __device__ inline float after_kernel(float v) { return v; }

#endif
