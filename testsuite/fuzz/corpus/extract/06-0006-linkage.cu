// Linkage, namespaces, qualifiers and attributes around kernels.
namespace lib {
namespace detail {
__device__ int clampi(int v, int hi) { return v < hi ? v : hi; }
}

#pragma astra shapes(n=64) buffers(p[n]) outputs(p) launch(grid=1, block=64)
static __global__ void __launch_bounds__(64) in_namespace(int *p, int n) { p[threadIdx.x] = detail::clampi(n, 7); }
}

#pragma astra shapes(n=64) buffers(p[n]) outputs(p) launch(grid=1, block=64)
extern "C" __global__ void c_kernel(float *p, int n) { p[threadIdx.x] = n; }

extern "C" {
#pragma astra shapes(n=64) buffers(p[n]) outputs(p) launch(grid=1, block=64)
__global__ void c_block_kernel(float *p, int n) { p[threadIdx.x] = n; }
}

typedef float *fptr;
#pragma astra shapes(n=64) buffers(p[n], q[n], r[n]) outputs(p, r) launch(grid=1, block=64) noalias
__global__ void
__launch_bounds__(128)
pointers(fptr p,
         float const * /* the input */ q,
         volatile double *const r,
         int n)
{
	p[threadIdx.x] = q[threadIdx.x];
	r[threadIdx.x] = n;
}
