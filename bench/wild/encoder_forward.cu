/*
 * Style: an embedding encoder with a thread per (batch, position) that
 * loops over the channels (GPT-2 style: token table plus position table),
 * a typedef'd element type, the index decomposed with / and %.
 * Computes: out[b, t, :] = wte[inp[b, t], :] + wpe[t, :], bf16.
 * THREAD-PER-ROW
 * Flags: none
 * Expect: block-per-row vectorize half2
 */
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

#pragma astra optimize noalias
#pragma astra shapes(B=8, T=1024, C=4096, V=50257) shapes(B=4, T=256, C=768, V=50257) \
	shapes(B=3, T=7, C=1001, V=97) shapes(B=1, T=1, C=3, V=5)
#pragma astra buffers(out[B*T*C], inp[B*T], wte[V*C], wpe[T*C]) outputs(out)
#pragma astra launch(grid=(B * T + 127) / 128, block=128)
#pragma astra range(inp: 0 .. V - 1) tolerance(rtol=2e-2, atol=2e-2) bytes(2*2*B*T*C + 2*T*C + 4*B*T) flops(B*T*C)
__global__ void encoder_forward(floatX *out, const int *inp, const floatX *wte, const floatX *wpe, int B, int T,
				int C, int V)
{
	int N = B * T;
	int idx = blockIdx.x * blockDim.x + threadIdx.x;
	if (idx < N) {
		int t = idx % T;
		int ix = inp[idx];
		floatX *out_bt = out + idx * C;
		const floatX *wte_ix = wte + ix * C;
		const floatX *wpe_t = wpe + t * C;
		for (int i = 0; i < C; i++)
			out_bt[i] = (floatX)((float)wte_ix[i] + (float)wpe_t[i]);
	}
}
