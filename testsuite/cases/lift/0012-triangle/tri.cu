// Triangular products written a thread per row (the shapes of PolyBench's
// covariance and correlation, written here from scratch): thread a takes
// row a of a symmetric result and walks the columns from its own row on,
// each element a sum over the samples, stored twice (sym[a][b] and
// sym[b][a]); the correlation form also sets its diagonal first and starts
// one past it.
#include <cuda_runtime.h>
#include "tri.cuh"

#pragma astra optimize
#pragma astra shapes(m=70, n=37) shapes(m=150, n=21) buffers(sym[m*m], x[n*m]) outputs(sym)
#pragma astra launch(grid=(m + 127) / 128, block=128)
__global__ void cov__tri(int m, int n, float *sym, const float *x)
{
	int a = blockIdx.x * blockDim.x + threadIdx.x;
	if (a < m) {
		for (int b = a; b < m; b++) {
			sym[a * m + b] = 0.0f;
			for (int t = 0; t < n; t++)
				sym[a * m + b] += x[t * m + a] * x[t * m + b];
			sym[b * m + a] = sym[a * m + b];
		}
	}
}

#pragma astra optimize
#pragma astra shapes(m=70, n=37) shapes(m=150, n=21) buffers(sym[m*m], x[n*m]) outputs(sym)
#pragma astra launch(grid=(m + 63) / 64, block=64)
__global__ void corr__tri(int m, int n, float *sym, const float *x)
{
	int a = blockIdx.x * blockDim.x + threadIdx.x;
	int b, t;
	if (a < m - 1) {
		sym[a * m + a] = 1.0f;
		for (b = a + 1; b < m; b++) {
			float acc = 0.0f;
			for (t = 0; t < n; t++)
				acc += x[t * m + a] * x[t * m + b];
			sym[a * m + b] = acc;
			sym[b * m + a] = acc;
		}
	}
}

// The diagonal set to one, then overwritten by the triangle that starts on
// it: the order of the two stores matters, and is not lowered.
#pragma astra optimize
#pragma astra shapes(m=70, n=37) buffers(sym[m*m], x[n*m]) outputs(sym)
#pragma astra launch(grid=(m + 127) / 128, block=128)
__global__ void diag__over(int m, int n, float *sym, const float *x)
{
	int a = blockIdx.x * blockDim.x + threadIdx.x;
	if (a < m) {
		sym[a * m + a] = 1.0f;
		for (int b = a; b < m; b++) {
			float acc = 0.0f;
			for (int t = 0; t < n; t++)
				acc += x[t * m + a] * x[t * m + b];
			sym[a * m + b] = acc;
		}
	}
}

// A column mean divided by a cast of a header's macro to a header's type:
// `(SAMPLE_T)NSCALE` is read as a cast, though SAMPLE_T is no type the
// front end knows.
#pragma astra optimize
#pragma astra shapes(m=70, n=37) buffers(mean[m], x[n*m]) outputs(mean)
#pragma astra launch(grid=(m + 127) / 128, block=128)
__global__ void mean__hdr(int m, int n, SAMPLE_T *mean, const SAMPLE_T *x)
{
	int a = blockIdx.x * blockDim.x + threadIdx.x;
	if (a < m) {
		mean[a] = 0.0f;
		for (int t = 0; t < n; t++)
			mean[a] += x[t * m + a];
		mean[a] /= (SAMPLE_T)NSCALE;
	}
}

// The covariance form bounded by a header's sizes: the launcher cannot
// evaluate TRI_M (the launch, as a capture records it, holds numbers), so
// the variant's grid is a block per tile of the original's threads.
#pragma astra optimize
#pragma astra buffers(sym[TRI_M*TRI_M], x[TRI_N*TRI_M]) outputs(sym)
#pragma astra launch(grid=3, block=32)
__global__ void cov__hdr(float *sym, const float *x)
{
	int a = blockIdx.x * blockDim.x + threadIdx.x;
	if (a < TRI_M) {
		for (int b = a; b < TRI_M; b++) {
			sym[a * TRI_M + b] = 0.0f;
			for (int t = 0; t < TRI_N; t++)
				sym[a * TRI_M + b] += x[t * TRI_M + a] * x[t * TRI_M + b];
			sym[b * TRI_M + a] = sym[a * TRI_M + b];
		}
	}
}

// A column's standard deviation with a floor set by a branch on the value
// (correlation's `if (std[j] <= EPS) std[j] = 1.0;`): a select of the
// place stored just before, so the branch adds no write.
#pragma astra optimize
#pragma astra shapes(m=70, n=37) shapes(m=300, n=45) buffers(sd[m], mean[m], x[n*m]) outputs(sd)
#pragma astra launch(grid=(m + 127) / 128, block=128)
__global__ void std__floor(int m, int n, float *sd, const float *mean, const float *x)
{
	int a = blockIdx.x * blockDim.x + threadIdx.x;
	if (a < m) {
		sd[a] = 0.0f;
		for (int t = 0; t < n; t++)
			sd[a] += (x[t * m + a] - mean[a]) * (x[t * m + a] - mean[a]);
		sd[a] /= n;
		sd[a] = sqrtf(sd[a]);
		if (sd[a] <= 0.5f)
			sd[a] = 1.0f;
	}
}

// The same floor on a place this thread never stored: only some threads
// write it, which a select would not keep.
#pragma astra optimize
#pragma astra shapes(m=70, n=37) buffers(sd[m], x[n*m]) outputs(sd)
#pragma astra launch(grid=(m + 127) / 128, block=128)
__global__ void floor__only(int m, int n, float *sd, const float *x)
{
	int a = blockIdx.x * blockDim.x + threadIdx.x;
	if (a < m) {
		if (x[a] <= 0.5f)
			sd[a] = 1.0f;
	}
}
