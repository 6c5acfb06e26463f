// bench/corpus/copy-sizes - the copy roofline at a kernel's own size
// (bench/corpus/run --copy-at-size): the time of a device-to-device copy
// that moves each given number of bytes (half read, half written), the L2
// flushed before each repeat (a memset of twice its size), the median of
// 15 after 3 untimed; and the 1 GiB copy ceiling the verifier measures
// (the best of 10 after 2).  Prints one JSON object.
//
// usage: copy-sizes BYTES...
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                                      \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "copy-sizes: %s: %s\n", #x, cudaGetErrorString(e_));       \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static float timed_copy(void *dst, const void *src, size_t n, cudaEvent_t a, cudaEvent_t b, void *flush, size_t fl)
{
	float ms = 0;
	if (flush)
		CK(cudaMemset(flush, 1, fl));
	CK(cudaEventRecord(a));
	CK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice));
	CK(cudaEventRecord(b));
	CK(cudaEventSynchronize(b));
	CK(cudaEventElapsedTime(&ms, a, b));
	return ms;
}

int main(int argc, char **argv)
{
	cudaDeviceProp p;
	cudaEvent_t a, b;
	size_t big = (size_t)1 << 30, most = big, fl;
	void *src, *dst, *flush;
	double ceiling = 0;
	int i, k;
	CK(cudaGetDeviceProperties(&p, 0));
	fl = std::max<size_t>(2 * (size_t)p.l2CacheSize, (size_t)64 << 20);
	for (i = 1; i < argc; i++)
		most = std::max<size_t>(most, (size_t)strtod(argv[i], NULL) / 2 + 16);
	CK(cudaMalloc(&src, most));
	CK(cudaMalloc(&dst, most));
	CK(cudaMalloc(&flush, fl));
	CK(cudaMemset(src, 3, most));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (k = 0; k < 12; k++) {
		float ms = timed_copy(dst, src, big, a, b, NULL, 0);
		if (k >= 2)
			ceiling = std::max(ceiling, 2.0 * (double)big / (ms * 1e-3) / 1e9);
	}
	printf("{\"device\": \"%s\", \"ceiling_gbps\": %.1f, \"copies\": [", p.name, ceiling);
	for (i = 1; i < argc; i++) {
		double bytes = strtod(argv[i], NULL);
		size_t n = (size_t)(bytes / 2);
		std::vector<float> t;
		for (k = 0; k < 18; k++) {
			float ms = timed_copy(dst, src, n, a, b, flush, fl);
			if (k >= 3)
				t.push_back(ms);
		}
		std::sort(t.begin(), t.end());
		printf("%s{\"bytes\": %.0f, \"us\": %.3f}", i > 1 ? ", " : "", bytes, t[t.size() / 2] * 1e3);
	}
	printf("]}\n");
	return 0;
}
