// style: a max reduction in a helper that takes the shared array
// expect: warp-reduce
__device__ float block_max(float v, float *red)
{
	int tid = threadIdx.x;
	red[tid] = v;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			red[tid] = fmaxf(red[tid], red[tid + s]);
		__syncthreads();
	}
	return red[0];
}

#pragma astra shapes(tokens=64, hidden=4096) shapes(tokens=3, hidden=1001)
#pragma astra buffers(out[tokens*hidden], scales[tokens], input[tokens*hidden])
#pragma astra outputs(out, scales)
#pragma astra launch(grid=tokens, block=256)
#pragma astra range(input: -20 .. 20)
#pragma astra noalias
__global__ void absmax_scale(float *out, float *scales, const float *input, int tokens, int hidden)
{
	__shared__ float red[256];
	const float *in = input + (size_t)blockIdx.x * hidden;
	float *o = out + (size_t)blockIdx.x * hidden;

	float amax = 0.0f;
	for (int i = threadIdx.x; i < hidden; i += blockDim.x)
		amax = fmaxf(amax, fabsf(in[i]));
	float scale = fmaxf(block_max(amax, red), 1e-10f) / 127.0f;
	if (threadIdx.x == 0)
		scales[blockIdx.x] = scale;
	for (int i = threadIdx.x; i < hidden; i += blockDim.x)
		o[i] = in[i] / scale;
}
