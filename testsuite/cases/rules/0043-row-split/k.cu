/*
 * A GPT-style encoder: each (batch, position) row adds the token's and the
 * position's embeddings, a thread per row.
 */
#include <cuda_bf16.h>

typedef __nv_bfloat16 floatX;

#pragma astra shapes(B=8, T=128, C=768) shapes(B=1, T=5, C=1003)
#pragma astra scalars(V=512)
#pragma astra buffers(out[B*T*C], tokens[B*T], wte[V*C], wpe[T*C])
#pragma astra outputs(out)
#pragma astra launch(grid=(B * T + 127) / 128, block=128)
#pragma astra range(tokens: 0 .. 511)
#pragma astra tolerance(rtol=1e-2, atol=1e-2)
#pragma astra noalias
__global__ void encoder(floatX *out, const int *tokens, const floatX *wte, const floatX *wpe, int B, int T, int C,
			int V)
{
	int bt = blockIdx.x * blockDim.x + threadIdx.x;
	if (bt >= B * T)
		return;
	int t = bt % T;
	int ix = tokens[bt];
	floatX *o = out + (size_t)bt * C;
	const floatX *tok = wte + (size_t)ix * C;
	const floatX *pos = wpe + (size_t)t * C;
	for (int c = 0; c < C; c++)
		o[c] = (floatX)((float)tok[c] + (float)pos[c]);
}
