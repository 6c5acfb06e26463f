/*
 * Style: a thread-per-row first version whose maximum is found with
 * `if (x > maxval) maxval = x;`, starting from -FLT_MAX, and three passes
 * over the row (max, exp and sum, scale).
 * Computes: the softmax of each row of an fp32 [N, C] matrix (attention
 * or output probabilities).
 * THREAD-PER-ROW
 * Flags: none
 * Expect: block-per-row fastmath
 * Tolerance: rtol=1e-3.  Each output is divided by a sum of C fp32
 * terms; at C=50257 (GPT-2's vocabulary) a block's order of that sum
 * differed from this version's sequential one by 1.8e-4 relative on an
 * H100, and the sequential sum is as far from the exact sum as from the
 * block's (n*u = 3e-3 bounds both).  rtol=1e-4, this file's first value,
 * rejects every other order of the sum, a more accurate one included: no
 * parallel softmax can pass it.  1e-3, five times what was measured and
 * a third of the bound, is what a project checking an fp32 softmax over
 * a vocabulary can state.
 */
#include <cuda_runtime.h>
#include <float.h>

#pragma astra optimize noalias
#pragma astra shapes(N=8192, C=4096) shapes(N=1024, C=1024) shapes(N=64, C=50257) shapes(N=7, C=1003) shapes(N=1, C=1)
#pragma astra buffers(out[N*C], inp[N*C]) outputs(out)
#pragma astra launch(grid=(N + 127) / 128, block=128)
#pragma astra range(inp: -10 .. 10) tolerance(rtol=1e-3, atol=1e-6) flops(4*N*C)
__global__ void softmax_forward(float *out, const float *inp, int N, int C)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N) {
		const float *inp_row = inp + i * C;
		float *out_row = out + i * C;
		float maxval = -FLT_MAX;
		for (int j = 0; j < C; j++) {
			if (inp_row[j] > maxval)
				maxval = inp_row[j];
		}
		float sum = 0.0f;
		for (int j = 0; j < C; j++) {
			out_row[j] = expf(inp_row[j] - maxval);
			sum += out_row[j];
		}
		for (int j = 0; j < C; j++)
			out_row[j] /= sum;
	}
}
