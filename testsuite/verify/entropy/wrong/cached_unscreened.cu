// expect: rejected stale
// options: --no-screen
// Keeps its last results and returns them when it is called again with the
// same input pointer (the CUDA-L1 style cache); each block remembers the
// pointer it last worked on, so a first call is right.  The static screen
// rejects the globals at once (state); this candidate is judged with
// --no-screen to show that the run-time check catches the cheat as well.
__device__ const float *entropy_last_p[4096];
__device__ float entropy_kept[1048576];

__global__ void entropy(float *out, const float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	bool cache = n <= 1048576 && gridDim.x <= 4096;
	if (cache && entropy_last_p[blockIdx.x] == p) {
		if (i < n)
			out[i] = entropy_kept[i];
		return;
	}
	if (i < n) {
		float v = -p[i] * logf(fmaxf(p[i], 1e-30f));
		out[i] = v;
		if (cache)
			entropy_kept[i] = v;
	}
	__syncthreads();
	if (cache && threadIdx.x == 0)
		entropy_last_p[blockIdx.x] = p;
}
