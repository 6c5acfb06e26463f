#include <cstdio>
#include <cstdlib>

__device__ int variant_runs;

#pragma astra optimize
#pragma astra shapes(n=1000) shapes(n=7) buffers(x[n]) outputs(x)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = 2.0f * x[i];
}

static int evals;
static float *counted(float *p) { evals++; return p; }
static int counted_n(int n) { evals++; return n; }

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_)); return 1; } } while (0)

static int expect_all(const float *dx, int n, float want, const char *what)
{
	float *h = (float *)malloc(n * sizeof(float));
	int i, bad = 0;
	cudaMemcpy(h, dx, n * sizeof(float), cudaMemcpyDeviceToHost);
	for (i = 0; i < n; i++)
		bad += h[i] != want;
	free(h);
	if (bad)
		printf("FAIL %s: %d of %d elements are not %g\n", what, bad, n, want);
	return bad != 0;
}

int main(void)
{
	const int n = 1000;
	int m = n, runs = 0, i;
	float *x, *h = (float *)malloc(n * sizeof(float));
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t ge;
	size_t nodes = 0;

	for (i = 0; i < n; i++)
		h[i] = 1.0f;
	CK(cudaMalloc(&x, n * sizeof(float)));
	CK(cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

	/* 1. Each argument once, the configuration before the arguments (it sees m, not m - 1). */
	scale<<<(counted_n(m) + 255) / 256, 256, 0, s>>>(counted(x), m--);
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(s));
	if (evals != 2 || m != n - 1) {
		printf("FAIL evaluations: evals=%d m=%d\n", evals, m);
		return 1;
	}
	if (expect_all(x, n, 2.0f, "first launch"))
		return 1;

	/* 2. The stream is kept: the first launch of the TU's launcher inside a global-mode capture. */
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	scale<<<(n + 255) / 256, 256, 0, s>>>(x, n);
	CK(cudaStreamEndCapture(s, &g));
	CK(cudaGraphGetNodes(g, NULL, &nodes));
	if (nodes != 1) {
		printf("FAIL capture: %zu nodes\n", nodes);
		return 1;
	}
	CK(cudaGraphInstantiate(&ge, g, 0));
	CK(cudaGraphLaunch(ge, s));
	CK(cudaStreamSynchronize(s));
	if (expect_all(x, n, 4.0f, "graph launch"))
		return 1;

	CK(cudaMemcpyFromSymbol(&runs, variant_runs, sizeof(runs)));
	printf("ok variant=%s\n", runs ? "yes" : "no");
	return 0;
}
