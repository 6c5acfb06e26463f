// style: layernorm with the block's sizes in locals and a macro for the tree
// expect: warp-reduce vectorize row-cache
#define TREE_SUM(buf, tid)                                  \
	for (int s_ = blockDim.x / 2; s_ > 0; s_ >>= 1) {   \
		if (tid < s_)                               \
			buf[tid] += buf[tid + s_];          \
		__syncthreads();                            \
	}

#pragma astra shapes(rows=64, cols=4096) shapes(rows=5, cols=1003)
#pragma astra buffers(out[rows*cols], x[rows*cols], w[cols], b[cols])
#pragma astra outputs(out)
#pragma astra launch(grid=rows, block=256)
#pragma astra scalars(eps=1e-5f)
#pragma astra range(x: -4 .. 4)
#pragma astra noalias
__global__ void layernorm_rows(float *out, const float *x, const float *w, const float *b, float eps,
			       int rows, int cols)
{
	__shared__ float red[256];
	const int tid = threadIdx.x;
	const int nthreads = blockDim.x;
	const float *xr = x + (size_t)blockIdx.x * cols;
	float *outr = out + (size_t)blockIdx.x * cols;

	float sum = 0.0f;
	for (int i = tid; i < cols; i += nthreads)
		sum += xr[i];
	red[tid] = sum;
	__syncthreads();
	TREE_SUM(red, tid)
	float mean = red[0] / cols;
	__syncthreads();
	float sq = 0.0f;
	for (int i = tid; i < cols; i += nthreads) {
		float d = xr[i] - mean;
		sq += d * d;
	}
	red[tid] = sq;
	__syncthreads();
	TREE_SUM(red, tid)
	float rstd = rsqrtf(red[0] / cols + eps);
	for (int i = tid; i < cols; i += nthreads)
		outr[i] = (xr[i] - mean) * rstd * w[i] + b[i];
}
