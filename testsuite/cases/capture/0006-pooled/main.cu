/*
 * ./prog ROWS...: one pool of 64 MB (as trainers keep their activations),
 * laid out inp | out | sums | the rest; one rowsum launch per ROWS, 256
 * columns.  Run on the host with testsuite/helpers/fake-cudart.cpp.
 */
#include <cuda_runtime.h>
#include <stdlib.h>

void run_rowsum(float *out, float *sums, const float *inp, int rows, int cols);
extern "C" void fake_cuda_emulate(const char *name, void (*fn)(dim3, dim3, void **));

static void emu_rowsum(dim3, dim3, void **a)
{
	float *out = *(float **)a[0], *sums = *(float **)a[1];
	const float *inp = *(const float **)a[2];
	int rows = *(int *)a[3], cols = *(int *)a[4];
	for (int r = 0; r < rows; r++) {
		float s = 0.0f;
		for (int c = 0; c < cols; c++) {
			out[r * cols + c] = 2.0f * inp[r * cols + c] + 1.0f;
			s += inp[r * cols + c];
		}
		sums[r] = s + 1.0f;
	}
}

int main(int argc, char **argv)
{
	const int cols = 256;
	char *pool;
	fake_cuda_emulate("rowsum", emu_rowsum);
	cudaMalloc((void **)&pool, 64 << 20);
	cudaMemset(pool, 0, 64 << 20);
	for (int i = 1; i < argc; i++) {
		int rows = atoi(argv[i]);
		float *inp = (float *)pool, *out = inp + rows * cols, *sums = out + rows * cols;
		run_rowsum(out, sums, inp, rows, cols);
	}
	return 0;
}
