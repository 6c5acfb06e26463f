/*
 * A trainer-shaped program: every activation in one pooled allocation
 * (sub-pointers), four kernels annotated with `#pragma astra optimize`
 * alone, a few "steps" at two batch sizes (so that the capture sees two
 * shapes per kernel).  Prints checksums of the results.
 */
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#pragma astra optimize
__global__ void encode(float *out, const int *ids, const float *wte, int tokens, int channels)
{
	int t = blockIdx.x;
	for (int c = threadIdx.x; c < channels; c += blockDim.x)
		out[(size_t)t * channels + c] = wte[(size_t)ids[t] * channels + c];
}

#pragma astra optimize
__global__ void rmsnorm(float *out, const float *inp, const float *weight, int rows, int channels)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float ss = 0.0f;
	for (int c = 0; c < channels; c++)
		ss += inp[(size_t)r * channels + c] * inp[(size_t)r * channels + c];
	float s = rsqrtf(ss / channels + 1e-5f);
	for (int c = 0; c < channels; c++)
		out[(size_t)r * channels + c] = inp[(size_t)r * channels + c] * s * weight[c];
}

#pragma astra optimize
__global__ void gelu(float *out, const float *inp, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float x = inp[i];
		out[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	}
}

#pragma astra optimize
__global__ void softmax(float *out, const float *inp, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *x = inp + (size_t)r * cols;
	float m = -1e30f, s = 0.0f;
	for (int c = 0; c < cols; c++)
		m = fmaxf(m, x[c]);
	for (int c = 0; c < cols; c++)
		s += expf(x[c] - m);
	for (int c = 0; c < cols; c++)
		out[(size_t)r * cols + c] = expf(x[c] - m) / s;
}

int main(int argc, char **argv)
{
	const int vocab = 8192, C = 768, maxT = 4096;
	size_t floats = (size_t)vocab * C + C + 5 * (size_t)maxT * C;
	char *pool;
	if (cudaMalloc(&pool, floats * sizeof(float) + maxT * sizeof(int)) != cudaSuccess) {
		printf("cudaMalloc: %s\n", cudaGetErrorString(cudaGetLastError()));
		return 1;
	}
	float *wte = (float *)pool, *w = wte + (size_t)vocab * C, *act = w + C;
	float *enc = act, *ln = enc + (size_t)maxT * C, *g = ln + (size_t)maxT * C, *sm = g + (size_t)maxT * C;
	int *ids = (int *)(act + 5 * (size_t)maxT * C);
	std::vector<float> h((size_t)vocab * C);
	for (size_t i = 0; i < h.size(); i++)
		h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
	cudaMemcpy(wte, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
	std::vector<float> hw(C, 1.0f);
	cudaMemcpy(w, hw.data(), C * sizeof(float), cudaMemcpyHostToDevice);
	double sum = 0;
	for (int step = 0; step < 6; step++) {
		int T = step < 3 ? 2048 : 4096;
		std::vector<int> hi(T);
		for (int t = 0; t < T; t++)
			hi[t] = (t * 7919 + step) % vocab;
		cudaMemcpy(ids, hi.data(), T * sizeof(int), cudaMemcpyHostToDevice);
		encode<<<T, 256>>>(enc, ids, wte, T, C);
		rmsnorm<<<(T + 127) / 128, 128>>>(ln, enc, w, T, C);
		gelu<<<(T * C + 255) / 256, 256>>>(g, ln, T * C);
		softmax<<<(T + 127) / 128, 128>>>(sm, g, T, C);
		std::vector<float> o((size_t)T * C);
		cudaMemcpy(o.data(), sm, o.size() * sizeof(float), cudaMemcpyDeviceToHost);
		for (size_t i = 0; i < o.size(); i += 97)
			sum += o[i] * (double)(i % 13 + 1);
	}
	printf("checksum %.6e (%s)\n", sum, cudaGetErrorString(cudaGetLastError()));
	return 0;
}
