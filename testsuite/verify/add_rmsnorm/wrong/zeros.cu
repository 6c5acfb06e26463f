// expect: rejected mismatch
// Writes zeros everywhere (the KernelBench "all zeros passes" cheat) and
// leaves the residual as it was.
template <typename T>
__global__ void add_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps, int rows, int cols)
{
	for (int i = threadIdx.x; i < cols; i += blockDim.x) {
		out[(size_t)blockIdx.x * cols + i] = (T)0.0f;
		residual[(size_t)blockIdx.x * cols + i] = (T)((float)residual[(size_t)blockIdx.x * cols + i] +
							     (float)x[(size_t)blockIdx.x * cols + i]);
	}
}
