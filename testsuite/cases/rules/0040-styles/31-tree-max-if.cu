// style: a max tree written with if, the running max with if
// expect: warp-reduce vectorize
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
	int tid = threadIdx.x;

	float amax = 0.0f;
	for (int i = tid; i < hidden; i += blockDim.x) {
		float a = fabsf(in[i]);
		if (a > amax)
			amax = a;
	}
	red[tid] = amax;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (tid < s) {
			if (red[tid + s] > red[tid])
				red[tid] = red[tid + s];
		}
		__syncthreads();
	}
	float scale = fmaxf(red[0], 1e-10f) / 127.0f;
	if (tid == 0)
		scales[blockIdx.x] = scale;
	for (int i = tid; i < hidden; i += blockDim.x)
		o[i] = in[i] / scale;
}
