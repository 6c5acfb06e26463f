// style: the classic reduction, two loads per thread, unsigned names
// expect: warp-reduce
#pragma astra shapes(n=1048576) shapes(n=1000)
#pragma astra buffers(out[(n + 511) / 512], in[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 511) / 512, block=256)
#pragma astra noalias
__global__ void reduce_sum(float *out, const float *in, int n)
{
	__shared__ float sdata[256];
	unsigned int tid = threadIdx.x;
	unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
	float v = 0.0f;
	if (i < n)
		v = in[i];
	if (i + blockDim.x < n)
		v += in[i + blockDim.x];
	sdata[tid] = v;
	__syncthreads();
	for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		out[blockIdx.x] = sdata[0];
}
