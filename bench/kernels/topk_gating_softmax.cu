/*
 * topk_gating_softmax - the MoE router (vLLM/SGLang `topk_softmax`): per
 * token, softmax over the experts' gating logits, then the k largest
 * probabilities and their expert indices (ties: the lower index first),
 * optionally renormalized to sum to one.  Softmax is monotonic, so the
 * selection compares logits.
 *
 * First version, THREAD-PER-ROW: one thread walks its token's logits for
 * the max, the sum and then once per selected expert, with scalar loads.
 */
#include <math.h>

#pragma astra optimize
#pragma astra shapes(tokens=65536, experts=256, k=8, renormalize=1)
#pragma astra shapes(tokens=2048, experts=128, k=8, renormalize=0)
#pragma astra shapes(tokens=33, experts=60, k=4, renormalize=1)
#pragma astra shapes(tokens=7, experts=8, k=2, renormalize=1)
#pragma astra shapes(tokens=1, experts=64, k=6, renormalize=0)
#pragma astra buffers(topk_weights[tokens*k], topk_indices[tokens*k], gating_output[tokens*experts])
#pragma astra outputs(topk_weights, topk_indices)
#pragma astra launch(grid=(tokens + 127)/128, block=128)
#pragma astra range(gating_output: -4 .. 4)
#pragma astra noalias
#pragma astra flops(3*tokens*experts)
__global__ void topk_gating_softmax(float *topk_weights, int *topk_indices,
				    const float *gating_output, int tokens, int experts,
				    int k, int renormalize)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= tokens)
		return;
	const float *g = gating_output + (size_t)t * experts;
	float *wt = topk_weights + (size_t)t * k;
	int *idx = topk_indices + (size_t)t * k;

	float m = -INFINITY;
	for (int e = 0; e < experts; e++)
		m = fmaxf(m, g[e]);
	float sum = 0.0f;
	for (int e = 0; e < experts; e++)
		sum += expf(g[e] - m);

	float wsum = 0.0f;
	for (int j = 0; j < k; j++) {
		int best = -1;
		float bv = -INFINITY;
		for (int e = 0; e < experts; e++) {
			bool taken = false;
			for (int p = 0; p < j; p++)
				taken = taken || idx[p] == e;
			if (!taken && (best < 0 || g[e] > bv)) {
				best = e;
				bv = g[e];
			}
		}
		idx[j] = best;
		wt[j] = expf(bv - m) / sum;
		wsum += wt[j];
	}
	if (renormalize)
		for (int j = 0; j < k; j++)
			wt[j] /= wsum;
}
