// style: the block size as a macro: array size, stride, tree start
// expect: vectorize warp-reduce
#define BLOCK_SIZE 256

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
	__shared__ float partial[BLOCK_SIZE];
	float *res = residual + (size_t)blockIdx.x * cols;
	const float *xr = x + (size_t)blockIdx.x * cols;
	float *outr = out + (size_t)blockIdx.x * cols;

	float sumsq = 0.0f;
	for (int i = threadIdx.x; i < cols; i += BLOCK_SIZE) {
		float s = xr[i] + res[i];
		res[i] = s;
		sumsq += s * s;
	}
	partial[threadIdx.x] = sumsq;
	__syncthreads();
	for (int stride = BLOCK_SIZE / 2; stride > 0; stride >>= 1) {
		if (threadIdx.x < stride)
			partial[threadIdx.x] += partial[threadIdx.x + stride];
		__syncthreads();
	}
	float inv = rsqrtf(partial[0] / cols + eps);
	for (int i = threadIdx.x; i < cols; i += BLOCK_SIZE)
		outr[i] = res[i] * inv * w[i];
}
