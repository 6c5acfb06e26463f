/*
 * topk_gating_softmax, hand-optimized: a warp per token instead of a
 * thread per token, so the logits are read coalesced (lane e reads
 * experts e, e+32, ...).  Max and sum are warp-shuffle reductions.
 *
 * Up to 256 experts (8 per lane) the logits stay in registers: each of the
 * k choices is a scan of the lane's 8 values and a shuffle argmax in the
 * order (logit descending, index ascending), and the winner's lane marks
 * it taken in a bit mask, so the selection is exactly the original's and
 * reads no memory.  More experts: the j-th choice is the best one ranked
 * after the (j-1)-th (no "taken" list; later scans hit L1).  8 tokens per
 * 256-thread block.
 */
__device__ __forceinline__ bool topk_gating_softmax_before(float v, int i, float bv, int bi)
{
	/* (v, i) ranks before (bv, bi); bi < 0 is "nothing" and ranks last */
	return i >= 0 && (bi < 0 || v > bv || (v == bv && i < bi));
}

/* Every lane gets the warp's best (bv, bi) in that order. */
__device__ __forceinline__ void topk_gating_softmax_warp_best(float &bv, int &bi)
{
	for (int o = 16; o > 0; o >>= 1) {
		float ov = __shfl_xor_sync(0xffffffffu, bv, o);
		int oi = __shfl_xor_sync(0xffffffffu, bi, o);
		if (topk_gating_softmax_before(ov, oi, bv, bi)) {
			bv = ov;
			bi = oi;
		}
	}
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

	float m = -INFINITY, sum = 0.0f, wsum = 0.0f;
	if (experts <= 256) {
		float v[8];
		unsigned taken = 0;
#pragma unroll
		for (int i = 0; i < 8; i++) {
			v[i] = lane + 32 * i < experts ? g[lane + 32 * i] : -INFINITY;
			m = fmaxf(m, v[i]);
		}
		for (int o = 16; o > 0; o >>= 1)
			m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
#pragma unroll
		for (int i = 0; i < 8; i++)
			if (lane + 32 * i < experts)
				sum += expf(v[i] - m);
		for (int o = 16; o > 0; o >>= 1)
			sum += __shfl_xor_sync(0xffffffffu, sum, o);
		for (int j = 0; j < k; j++) {
			float bv = -INFINITY;
			int bi = -1;
#pragma unroll
			for (int i = 0; i < 8; i++) {
				int e = lane + 32 * i;
				if (e < experts && !((taken >> i) & 1u) && topk_gating_softmax_before(v[i], e, bv, bi)) {
					bv = v[i];
					bi = e;
				}
			}
			topk_gating_softmax_warp_best(bv, bi);
			if (bi >= 0 && (bi & 31) == lane)
				taken |= 1u << (bi >> 5);
			float wv = expf(bv - m) / sum;
			if (lane == (j & 31)) {
				idx[j] = bi;
				wt[j] = wv;
			}
			wsum += wv;
		}
		if (renormalize)
			for (int j = lane; j < k; j += 32)
				wt[j] /= wsum;
		return;
	}

	for (int e = lane; e < experts; e += 32)
		m = fmaxf(m, g[e]);
	for (int o = 16; o > 0; o >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
	for (int e = lane; e < experts; e += 32)
		sum += expf(g[e] - m);
	for (int o = 16; o > 0; o >>= 1)
		sum += __shfl_xor_sync(0xffffffffu, sum, o);

	float prev_v = INFINITY;
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
		topk_gating_softmax_warp_best(bv, bi);
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
