/*
 * Run k.cu's launch on the host (testsuite/helpers/fake-cudart.cpp): each
 * launch prints which kernel ran and its geometry, then runs the kernel's
 * body as a host emulation of every thread the geometry has.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

void run(float *x, int n);
extern "C" void fake_cuda_emulate(const char *name, void (*fn)(dim3, dim3, void **));

/* The threads the geometry launches, each doing one element (the original's body). */
static void emu(const char *what, dim3 g, dim3 b, void **a, int stride)
{
	float *x = *(float **)a[0];
	int n = *(int *)a[1];
	printf("%s grid=%u block=%u\n", what, g.x, b.x);
	for (unsigned blk = 0; blk < g.x; blk++)
		for (unsigned t = 0; t < b.x; t++)
			for (int i = (int)(blk * b.x + t); i < n; i += stride ? (int)(g.x * b.x) : n)
				x[i] = x[i] * 2.0f;
}
static void emu_variant(dim3 g, dim3 b, void **a) { emu("variant", g, b, a, 1); }
static void emu_original(dim3 g, dim3 b, void **a) { emu("original", g, b, a, 0); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	/* The first name that matches wins: the variant's before the original's. */
	fake_cuda_emulate("__astra_v_scale", emu_variant);
	fake_cuda_emulate("scale", emu_original);
	std::vector<float> h(n);
	for (int i = 0; i < n; i++)
		h[i] = (float)i;
	float *x;
	cudaMalloc((void **)&x, n * sizeof(float));
	cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	run(x, n);
	cudaMemcpy(h.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost);
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += h[i] != 2.0f * (float)i;
	printf("n=%d wrong elements: %d\n", n, bad);
	return 0;
}
