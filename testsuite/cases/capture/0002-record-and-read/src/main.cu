/*
 * The program a capture build is linked into, run on the host with
 * testsuite/helpers/fake-cudart.cpp: the kernels run as host emulations,
 * so that the recorder's checksums see what a launch writes.
 *   prog N...   one axpy launch per N (y += 2 x), then, with GATHER=T,
 *               one gather of T rows of 64 from a 10-row table (ids
 *               written to ids.bin).  AXPY_WRITES_NOTHING=1: the axpy
 *               emulation leaves y as it was.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

void run_axpy(float *y, const float *x, float a, int n, cudaStream_t s);
void run_gather(float *out, const int *ids, const float *table, int tokens, int dim, cudaStream_t s);
extern "C" void fake_cuda_emulate(const char *name, void (*fn)(dim3, dim3, void **));

static void emu_axpy(dim3, dim3, void **a)
{
	float *y = *(float **)a[0];
	const float *x = *(const float **)a[1];
	float s = *(float *)a[2];
	int n = *(int *)a[3];
	if (getenv("AXPY_WRITES_NOTHING"))
		return;
	for (int i = 0; i < n; i++)
		y[i] = s * x[i] + y[i];
}

static void emu_gather(dim3, dim3, void **a)
{
	float *out = *(float **)a[0];
	const int *ids = *(const int **)a[1];
	const float *table = *(const float **)a[2];
	int tokens = *(int *)a[3], dim = *(int *)a[4];
	for (int t = 0; t < tokens; t++)
		for (int i = 0; i < dim; i++)
			out[(size_t)t * dim + i] = table[(size_t)ids[t] * dim + i];
}

int main(int argc, char **argv)
{
	fake_cuda_emulate("axpy", emu_axpy);
	fake_cuda_emulate("gather_rows", emu_gather);
	for (int i = 1; i < argc; i++) {
		int n = atoi(argv[i]);
		std::vector<float> h(n, 1.0f);
		float *x, *y;
		cudaMalloc((void **)&x, n * sizeof(float));
		cudaMalloc((void **)&y, n * sizeof(float));
		cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
		cudaMemcpy(y, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
		run_axpy(y, x, 2.0f, n, 0);
		cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
		float want = getenv("AXPY_WRITES_NOTHING") ? 1.0f : 3.0f;
		if (n && h[0] != want) {
			fprintf(stderr, "prog: axpy gave %g, not %g\n", h[0], want);
			return 1;
		}
		cudaFree(x);
		cudaFree(y);
	}
	if (getenv("GATHER")) {
		int tokens = atoi(getenv("GATHER")), dim = 64, rows = 10;
		std::vector<int> ids(tokens);
		std::vector<float> table((size_t)rows * dim);
		for (int t = 0; t < tokens; t++)
			ids[t] = (t * 7 + 3) % rows;
		for (size_t i = 0; i < table.size(); i++)
			table[i] = (float)i;
		FILE *f = fopen("ids.bin", "wb");
		fwrite(ids.data(), sizeof(int), ids.size(), f);
		fclose(f);
		int *d_ids;
		float *d_table, *d_out;
		cudaMalloc((void **)&d_ids, tokens * sizeof(int));
		cudaMalloc((void **)&d_table, table.size() * sizeof(float));
		cudaMalloc((void **)&d_out, (size_t)tokens * dim * sizeof(float));
		cudaMemcpy(d_ids, ids.data(), tokens * sizeof(int), cudaMemcpyHostToDevice);
		cudaMemcpy(d_table, table.data(), table.size() * sizeof(float), cudaMemcpyHostToDevice);
		run_gather(d_out, d_ids, d_table, tokens, dim, 0);
		cudaFree(d_ids);
		cudaFree(d_table);
		cudaFree(d_out);
	}
	return 0;
}
