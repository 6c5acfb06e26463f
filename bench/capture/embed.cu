/*
 * embed.cu - an embedding lookup annotated with `#pragma astra optimize`
 * alone (the kernel of bench/kernels/embedding.cu), launched on token ids
 * as a real batch has them: a skewed distribution over a 32000-word
 * vocabulary and padding (-1) at the end of each sequence.  Random ids
 * would read outside the table; bench/run-capture builds this as a
 * capture build with data, runs it, and checks that warmup verified the
 * kernel with the captured ids.  Exit 2 without a GPU.
 */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <vector>

#pragma astra optimize
template <typename T>
__global__ void embedding(T *out, const int *ids, const T *table, int tokens, int hidden, int vocab)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= tokens)
		return;
	int id = ids[t];
	T *o = out + (size_t)t * hidden;
	if (id < 0 || id >= vocab) {
		for (int i = 0; i < hidden; i++)
			o[i] = (T)0.0f;
		return;
	}
	const T *row = table + (size_t)id * hidden;
	for (int i = 0; i < hidden; i++)
		o[i] = row[i];
}

int main(void)
{
	const int vocab = 32000, hidden = 4096, seqs = 16, len = 256, tokens = seqs * len;
	std::vector<int> ids(tokens);
	uint32_t s = 7u;
	for (int q = 0; q < seqs; q++)
		for (int i = 0; i < len; i++) {
			s = s * 1664525u + 1013904223u;
			double u = (s >> 8) / 16777216.0;
			/* Zipf-like: small ids are frequent; the last eighth of each sequence is padding. */
			ids[q * len + i] = i >= len - len / 8 ? -1 : (int)(vocab * u * u * u) % vocab;
		}
	int *d_ids;
	__half *d_table, *d_out;
	if (cudaMalloc((void **)&d_ids, tokens * sizeof(int)) != cudaSuccess) {
		fprintf(stderr, "embed: no CUDA device\n");
		return 2;
	}
	cudaMalloc((void **)&d_table, (size_t)vocab * hidden * sizeof(__half));
	cudaMalloc((void **)&d_out, (size_t)tokens * hidden * sizeof(__half));
	cudaMemcpy(d_ids, ids.data(), tokens * sizeof(int), cudaMemcpyHostToDevice);
	cudaMemset(d_table, 0x3c, (size_t)vocab * hidden * sizeof(__half));
	for (int rep = 0; rep < 3; rep++)
		embedding<__half><<<(tokens + 127) / 128, 128>>>(d_out, d_ids, d_table, tokens, hidden, vocab);
	cudaError_t e = cudaDeviceSynchronize();
	cudaFree(d_ids), cudaFree(d_table), cudaFree(d_out);
	if (e != cudaSuccess) {
		fprintf(stderr, "embed: %s\n", cudaGetErrorString(e));
		return 1;
	}
	printf("embed: %d tokens looked up 3 times\n", tokens);
	return 0;
}
