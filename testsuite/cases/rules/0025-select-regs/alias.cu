#include <math.h>

#pragma astra shapes(tokens=4096, experts=256, k=8)
#pragma astra shapes(tokens=3, experts=60, k=4)
#pragma astra buffers(wt[tokens*k], idx[tokens*k], logits[tokens*experts])
#pragma astra outputs(wt, idx)
#pragma astra launch(grid=(tokens + 127)/128, block=128)
__global__ void topk(float *wt, int *idx, const float *logits, int tokens, int experts, int k)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= tokens)
		return;
	const float *g = logits + (size_t)t * experts;
	int *ix = idx + (size_t)t * k;
	for (int j = 0; j < k; j++) {
		int best = -1;
		float bv = -INFINITY;
		for (int e = 0; e < experts; e++) {
			bool taken = false;
			for (int p = 0; p < j; p++)
				taken = taken || ix[p] == e;
			if (!taken && (best < 0 || g[e] > bv)) {
				best = e;
				bv = g[e];
			}
		}
		ix[j] = best;
		wt[(size_t)t * k + j] = bv;
	}
}
