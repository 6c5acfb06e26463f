// style: embedding with flat index arithmetic and no row pointers
// expect: block-per-row warp-per-row
#pragma astra shapes(tokens=256, hidden=1024) shapes(tokens=5, hidden=1003)
#pragma astra scalars(vocab=64)
#pragma astra buffers(out[tokens*hidden], ids[tokens], table[vocab*hidden])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens + 255)/256, block=256)
#pragma astra range(ids: 0 .. 63)
#pragma astra tolerance(rtol=0, atol=0)
#pragma astra noalias
__global__ void embed(float *out, const int *ids, const float *table, int tokens, int hidden, int vocab)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= tokens) return;
	int id = ids[t];
	for (int i = 0; i < hidden; i += 1)
		out[t * hidden + i] = table[id * hidden + i];
}
