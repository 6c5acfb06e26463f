/*
 * square.cu's program on the host fake of the CUDA runtime: one scale_2d
 * launch per argument N, on an N x N image.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <vector>

void run_scale_2d(float *dst, const float *src, float alpha, int height, int width);
extern "C" void fake_cuda_emulate(const char *name, void (*fn)(dim3, dim3, void **));

static void emu_scale_2d(dim3, dim3, void **a)
{
	float *dst = *(float **)a[0];
	const float *src = *(const float **)a[1];
	float alpha = *(float *)a[2];
	int h = *(int *)a[3], w = *(int *)a[4];
	for (int i = 0; i < h * w; i++)
		dst[i] = alpha * src[i];
}

int main(int argc, char **argv)
{
	fake_cuda_emulate("scale_2d", emu_scale_2d);
	for (int i = 1; i < argc; i++) {
		int n = atoi(argv[i]);
		std::vector<float> h((size_t)n * n, 1.0f);
		float *src, *dst;
		cudaMalloc((void **)&src, h.size() * sizeof(float));
		cudaMalloc((void **)&dst, h.size() * sizeof(float));
		cudaMemcpy(src, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
		run_scale_2d(dst, src, 0.5f, n, n);
		cudaFree(src);
		cudaFree(dst);
	}
	return 0;
}
