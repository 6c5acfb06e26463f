/*
 * Style: a thread-per-row loss over a large vocabulary: the row's maximum
 * with fmaxf, its log-sum-exp in a second pass, the target's logit read
 * by index; int targets.
 * Computes: losses[i] = logsumexp(logits[i, :]) - logits[i, targets[i]]
 * (softmax cross entropy), fp32.
 * THREAD-PER-ROW
 * Flags: none
 * Expect: block-per-row fastmath
 */
#include <cuda_runtime.h>
#include <float.h>

#pragma astra optimize noalias
#pragma astra shapes(N=4096, V=32000) shapes(N=512, V=50257) shapes(N=7, V=1001) shapes(N=1, V=2)
#pragma astra buffers(losses[N], logits[N*V], targets[N]) outputs(losses)
#pragma astra launch(grid=(N + 127) / 128, block=128)
#pragma astra range(logits: -10 .. 10) range(targets: 0 .. V - 1) tolerance(rtol=1e-4, atol=1e-5) flops(3*N*V)
__global__ void cross_entropy(float *losses, const float *logits, const int *targets, int N, int V)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= N)
		return;
	const float *row = logits + (size_t)i * V;
	float maxval = -FLT_MAX;
	for (int v = 0; v < V; v++)
		maxval = fmaxf(maxval, row[v]);
	float sum = 0.0f;
	for (int v = 0; v < V; v++)
		sum += expf(row[v] - maxval);
	losses[i] = logf(sum) + maxval - row[targets[i]];
}
