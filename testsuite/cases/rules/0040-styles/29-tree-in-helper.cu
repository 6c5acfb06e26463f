// style: the block reduction inside a __device__ helper
// expect: warp-reduce vectorize
__device__ float block_sum(float v)
{
	__shared__ float red[256];
	int tid = threadIdx.x;
	red[tid] = v;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			red[tid] += red[tid + s];
		__syncthreads();
	}
	float total = red[0];
	__syncthreads();
	return total;
}

#pragma astra shapes(rows=64, cols=4096) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], residual[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out, residual)
#pragma astra launch(grid=rows, block=256)
#pragma astra scalars(eps=1e-6f)
#pragma astra range(x: -2 .. 2) range(residual: -2 .. 2)
#pragma astra noalias
__global__ void add_rmsnorm(float *out, float *residual, const float *x, const float *w, float eps,
			    int rows, int cols)
{
	float *res = residual + (size_t)blockIdx.x * cols;
	const float *xr = x + (size_t)blockIdx.x * cols;
	float *outr = out + (size_t)blockIdx.x * cols;

	float sumsq = 0.0f;
	for (int i = threadIdx.x; i < cols; i += blockDim.x) {
		float s = xr[i] + res[i];
		res[i] = s;
		sumsq += s * s;
	}
	float inv = rsqrtf(block_sum(sumsq) / cols + eps);
	for (int i = threadIdx.x; i < cols; i += blockDim.x)
		outr[i] = res[i] * inv * w[i];
}
