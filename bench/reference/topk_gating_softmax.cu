/*
 * topk_gating_softmax, hand-optimized: a warp per token instead of a
 * thread per token, so the logits are read coalesced (lane e reads
 * experts e, e+32, ...).  Max and sum are warp-shuffle reductions.  The
 * j-th expert is the best one ranked after the (j-1)-th in the order
 * (logit descending, index ascending): each lane scans its experts and a
 * shuffle argmax with the same tie rule picks the winner, so no "taken"
 * list is kept and the selection is exactly the original's.  Later scans
 * hit L1.  8 tokens per 256-thread block.
 */
__device__ __forceinline__ bool topk_gating_softmax_before(float v, int i, float bv, int bi)
{
	/* (v, i) ranks before (bv, bi); bi < 0 is "nothing" and ranks last */
	return i >= 0 && (bi < 0 || v > bv || (v == bv && i < bi));
}

#pragma astra launch(grid=(tokens + 7) / 8, block=256)
__global__ void topk_gating_softmax(float *topk_weights, int *topk_indices,
				    const float *gating_output, int tokens, int experts,
				    int k, int renormalize)
{
	int t = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	int lane = threadIdx.x & 31;
	if (t >= tokens)
		return; /* whole warps leave together */
	const float *g = gating_output + (size_t)t * experts;
	float *wt = topk_weights + (size_t)t * k;
	int *idx = topk_indices + (size_t)t * k;

	float m = -INFINITY;
	for (int e = lane; e < experts; e += 32)
		m = fmaxf(m, g[e]);
	for (int o = 16; o > 0; o >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
	float sum = 0.0f;
	for (int e = lane; e < experts; e += 32)
		sum += expf(g[e] - m);
	for (int o = 16; o > 0; o >>= 1)
		sum += __shfl_xor_sync(0xffffffffu, sum, o);

	float prev_v = INFINITY, wsum = 0.0f;
	int prev_i = -1;
	for (int j = 0; j < k; j++) {
		float bv = -INFINITY;
		int bi = -1;
		for (int e = lane; e < experts; e += 32) {
			float v = g[e];
			bool after = v < prev_v || (v == prev_v && e > prev_i);
			if (after && topk_gating_softmax_before(v, e, bv, bi)) {
				bv = v;
				bi = e;
			}
		}
		for (int o = 16; o > 0; o >>= 1) {
			float ov = __shfl_xor_sync(0xffffffffu, bv, o);
			int oi = __shfl_xor_sync(0xffffffffu, bi, o);
			if (topk_gating_softmax_before(ov, oi, bv, bi)) {
				bv = ov;
				bi = oi;
			}
		}
		float wv = expf(bv - m) / sum;
		if (lane == (j & 31)) {
			idx[j] = bi;
			wt[j] = wv;
		}
		wsum += wv;
		prev_v = bv;
		prev_i = bi;
	}
	if (renormalize)
		for (int j = lane; j < k; j += 32)
			wt[j] /= wsum;
}
