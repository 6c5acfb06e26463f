// style: the tree's sum spelled out, threadIdx.x in the test
// expect: warp-reduce
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
	__shared__ float partial[256];
	int tid = threadIdx.x;
	float *res = residual + (size_t)blockIdx.x * cols;
	const float *xr = x + (size_t)blockIdx.x * cols;
	float *outr = out + (size_t)blockIdx.x * cols;

	float sumsq = 0.0f;
	for (int i = tid; i < cols; i += blockDim.x) {
		float s = xr[i] + res[i];
		res[i] = s;
		sumsq = sumsq + s * s;
	}
	partial[tid] = sumsq;
	__syncthreads();
	for (unsigned int s = blockDim.x >> 1; s > 0; s >>= 1) {
		if (threadIdx.x < s) {
			partial[tid] = partial[tid] + partial[tid + s];
		}
		__syncthreads();
	}
	float inv = rsqrtf(partial[0] / cols + eps);
	for (int i = tid; i < cols; i += blockDim.x)
		outr[i] = res[i] * inv * w[i];
}
