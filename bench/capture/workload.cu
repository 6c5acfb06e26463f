/*
 * workload.cu - a short real workload for the example project's kernels
 * (examples/layer.h), for bench/run-capture: each kernel at the sizes its
 * full pragma lists in examples/layer.cu, so that a capture of this run
 * and the full pragmas describe the same shapes.  Inputs are in the
 * pragmas' ranges.  Exit 2 without a GPU.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "layer.h"

static uint32_t state = 12345u;
static float uniform(float lo, float hi)
{
	state ^= state << 13;
	state ^= state >> 17;
	state ^= state << 5;
	return lo + (hi - lo) * (float)(state >> 8) / 16777216.0f;
}

template <typename T> static T *filled(size_t n, float lo, float hi)
{
	std::vector<T> h(n);
	for (auto &v : h)
		v = (T)uniform(lo, hi);
	T *d = nullptr;
	if (cudaMalloc(&d, n * sizeof(T)) != cudaSuccess || cudaMemcpy(d, h.data(), n * sizeof(T), cudaMemcpyHostToDevice))
		exit(2);
	return d;
}

int main(void)
{
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || !ndev) {
		fprintf(stderr, "workload: no CUDA device\n");
		return 2;
	}
	static const int rms[][2] = { { 2048, 8192 }, { 64, 4096 }, { 7, 5120 }, { 1, 4096 } };
	for (auto &s : rms) {
		size_t n = (size_t)s[0] * s[1];
		__nv_bfloat16 *out = filled<__nv_bfloat16>(n, 0, 0), *res = filled<__nv_bfloat16>(n, -2, 2);
		__nv_bfloat16 *x = filled<__nv_bfloat16>(n, -2, 2), *w = filled<__nv_bfloat16>(s[1], 0.5f, 1.5f);
		layer_add_rmsnorm(out, res, x, w, 1e-6f, s[0], s[1], 0);
		cudaDeviceSynchronize();
		cudaFree(out), cudaFree(res), cudaFree(x), cudaFree(w);
	}
	static const int silu[][2] = { { 2048, 14336 }, { 64, 11008 }, { 7, 5120 }, { 1, 4096 }, { 3, 1001 } };
	for (auto &s : silu) {
		size_t n = (size_t)s[0] * s[1];
		__nv_bfloat16 *out = filled<__nv_bfloat16>(n, 0, 0), *in = filled<__nv_bfloat16>(2 * n, -8, 8);
		layer_silu_and_mul(out, in, s[0], s[1], 0);
		cudaDeviceSynchronize();
		cudaFree(out), cudaFree(in);
	}
	static const int sm[][2] = { { 4096, 4096 }, { 64, 32000 }, { 7, 5120 }, { 1, 4096 }, { 33, 1000 } };
	for (auto &s : sm) {
		size_t n = (size_t)s[0] * s[1];
		float *out = filled<float>(n, 0, 0), *x = filled<float>(n, -10, 10);
		layer_softmax(out, x, s[0], s[1], 0);
		cudaDeviceSynchronize();
		cudaFree(out), cudaFree(x);
	}
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess) {
		fprintf(stderr, "workload: %s\n", cudaGetErrorString(e));
		return 1;
	}
	printf("workload: 14 launches done\n");
	return 0;
}
