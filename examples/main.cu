/*
 * main.cu - the demo's host program: one MLP step of a small decoder layer
 * on 64 tokens (residual add + RMSNorm, the SwiGLU activation, and a
 * softmax over a 32000-word vocabulary), each result checked against a
 * plain CPU computation and summarized by a checksum.
 *
 * The kernels are in layer.cu; building with `make NVCC=astra-cc` may give
 * them faster verified variants, and this program's output must not change
 * (beyond the last digits of the checksums).  Exit status: 0 when every
 * result matches, 1 when one does not, 2 when no GPU can run it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include "layer.h"

#define CUDA_CHECK(call)                                                               \
	do {                                                                           \
		cudaError_t err_ = (call);                                             \
		if (err_ != cudaSuccess) {                                             \
			fprintf(stderr, "demo: %s: %s\n", #call, cudaGetErrorString(err_)); \
			exit(2);                                                       \
		}                                                                      \
	} while (0)

typedef __nv_bfloat16 bf16;

static float uniform(float lo, float hi)
{
	static uint32_t s = 2463534242u; /* xorshift32: same data on every run */
	s ^= s << 13;
	s ^= s >> 17;
	s ^= s << 5;
	return lo + (hi - lo) * (float)(s >> 8) / 16777216.0f;
}

template <typename T> static T *to_device(const std::vector<T> &h)
{
	T *d;
	CUDA_CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
	CUDA_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
	return d;
}

template <typename T> static std::vector<T> to_host(const T *d, size_t n)
{
	std::vector<T> h(n);
	CUDA_CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
	return h;
}

static float val(bf16 v) { return __bfloat162float(v); }
static float val(float v) { return v; }

/* Compare a GPU result with the CPU's; print one line; return 1 if it matches. */
template <typename T>
static int report(const char *what, const std::vector<T> &gpu, const std::vector<T> &cpu,
		  double rtol, double atol)
{
	double sum_gpu = 0, sum_cpu = 0, max_err = 0;
	size_t bad = 0;
	for (size_t i = 0; i < gpu.size(); i++) {
		double g = val(gpu[i]), c = val(cpu[i]);
		sum_gpu += g;
		sum_cpu += c;
		double err = fabs(g - c);
		if (!(err <= atol + rtol * fabs(c)))
			bad++;
		if (err > max_err || err != err)
			max_err = err;
	}
	printf("%-20s checksum %14.6f (cpu %14.6f)  max error %.2e  %s\n", what, sum_gpu, sum_cpu,
	       max_err, bad ? "MISMATCH" : "ok");
	return bad == 0;
}

int main(void)
{
	const int tokens = 64, hidden = 4096, inter = 11008, vocab = 32000;
	const float eps = 1e-6f;
	int ndev = 0;

	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		fprintf(stderr, "demo: no CUDA device here; the build worked, running needs a GPU\n");
		return 2;
	}

	std::vector<bf16> x(tokens * hidden), residual(tokens * hidden), w(hidden);
	std::vector<bf16> gate_up((size_t)tokens * 2 * inter);
	std::vector<float> logits((size_t)tokens * vocab);
	for (auto &v : x) v = __float2bfloat16(uniform(-2, 2));
	for (auto &v : residual) v = __float2bfloat16(uniform(-2, 2));
	for (auto &v : w) v = __float2bfloat16(uniform(0.5f, 1.5f));
	for (auto &v : gate_up) v = __float2bfloat16(uniform(-8, 8));
	for (auto &v : logits) v = uniform(-10, 10);

	bf16 *d_x = to_device(x), *d_res = to_device(residual), *d_w = to_device(w);
	bf16 *d_gate_up = to_device(gate_up), *d_normed, *d_act;
	float *d_logits = to_device(logits), *d_probs;
	CUDA_CHECK(cudaMalloc(&d_normed, x.size() * sizeof(bf16)));
	CUDA_CHECK(cudaMalloc(&d_act, (size_t)tokens * inter * sizeof(bf16)));
	CUDA_CHECK(cudaMalloc(&d_probs, logits.size() * sizeof(float)));

	layer_add_rmsnorm(d_normed, d_res, d_x, d_w, eps, tokens, hidden, 0);
	layer_silu_and_mul(d_act, d_gate_up, tokens, inter, 0);
	layer_softmax(d_probs, d_logits, tokens, vocab, 0);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());

	/* The same computations on the CPU. */
	std::vector<bf16> res_ref(residual.size()), normed_ref(x.size());
	for (int r = 0; r < tokens; r++) {
		double sumsq = 0;
		for (int i = 0; i < hidden; i++) {
			size_t k = (size_t)r * hidden + i;
			res_ref[k] = __float2bfloat16(val(x[k]) + val(residual[k]));
			sumsq += (double)val(res_ref[k]) * val(res_ref[k]);
		}
		double inv = 1.0 / sqrt(sumsq / hidden + eps);
		for (int i = 0; i < hidden; i++) {
			size_t k = (size_t)r * hidden + i;
			normed_ref[k] = __float2bfloat16((float)(val(res_ref[k]) * inv * val(w[i])));
		}
	}
	std::vector<bf16> act_ref((size_t)tokens * inter);
	for (int t = 0; t < tokens; t++)
		for (int i = 0; i < inter; i++) {
			double g = val(gate_up[(size_t)t * 2 * inter + i]);
			double u = val(gate_up[(size_t)t * 2 * inter + inter + i]);
			act_ref[(size_t)t * inter + i] = __float2bfloat16((float)(g / (1 + exp(-g)) * u));
		}
	std::vector<float> probs_ref(logits.size());
	for (int r = 0; r < tokens; r++) {
		const float *l = &logits[(size_t)r * vocab];
		double m = -INFINITY, sum = 0;
		for (int i = 0; i < vocab; i++) m = fmax(m, l[i]);
		for (int i = 0; i < vocab; i++) sum += exp(l[i] - m);
		for (int i = 0; i < vocab; i++) probs_ref[(size_t)r * vocab + i] = (float)(exp(l[i] - m) / sum);
	}

	int ok = 1;
	ok &= report("residual (x + res)", to_host(d_res, residual.size()), res_ref, 0, 0);
	ok &= report("fused_add_rmsnorm", to_host(d_normed, x.size()), normed_ref, 1e-2, 1e-2);
	ok &= report("silu_and_mul", to_host(d_act, act_ref.size()), act_ref, 1e-2, 1e-3);
	ok &= report("softmax", to_host(d_probs, logits.size()), probs_ref, 1e-4, 1e-9);
	printf("%s\n", ok ? "all results match the CPU" : "SOME RESULTS DIFFER FROM THE CPU");

	cudaFree(d_x); cudaFree(d_res); cudaFree(d_w); cudaFree(d_gate_up);
	cudaFree(d_normed); cudaFree(d_act); cudaFree(d_logits); cudaFree(d_probs);
	return ok ? 0 : 1;
}
