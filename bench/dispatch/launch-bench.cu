/*
 * launch-bench.cu - the host side of a launch, timed: a loop of launches
 * of an annotated kernel with arguments that change every time (so that
 * no choice can be hoisted), compiled by astra-cc with a cache entry that
 * holds one variant (the launcher without dispatch) or a variant set (the
 * same launcher with the choice), and linked with launch-shim.cpp (no GPU:
 * a launch ends in the shim).  bench/dispatch.sh compares the two.
 *
 * Usage: launch-bench silu|rowsum N   prints nanoseconds per launch: the
 * thread's CPU time, then the wall clock
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuda_fp16.h>

#pragma astra shapes(t=2048, d=14336) shapes(t=128, d=11008) shapes(t=16, d=4096)
#pragma astra shapes(t=7, d=5120) shapes(t=1, d=4096) shapes(t=3, d=1001)
#pragma astra buffers(out[t*d], in[t*2*d]) outputs(out)
#pragma astra launch(grid=(t*d + 255)/256, block=256)
#pragma astra types(T=__half)
template <typename T>
__global__ void silu(T *out, const T *in, int t, int d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= t * d)
		return;
	float g = (float)in[(i / d) * 2 * d + i % d];
	float u = (float)in[(i / d) * 2 * d + d + i % d];
	out[i] = (T)(g / (1.0f + expf(-g)) * u);
}

#pragma astra shapes(rows=1, cols=4096) shapes(rows=8, cols=4096) shapes(rows=64, cols=4096)
#pragma astra shapes(rows=512, cols=4096) shapes(rows=4096, cols=4096) shapes(rows=65536, cols=4096)
#pragma astra buffers(out[rows], x[rows*cols]) outputs(out)
#pragma astra launch(grid=rows, block=1)
__global__ void rowsum(float *out, const float *x, int rows, int cols)
{
	float s = 0;
	for (int j = 0; j < cols; j++)
		s += x[blockIdx.x * cols + j];
	out[blockIdx.x] = s;
}

/*
 * The thread's CPU time: on a shared machine the wall clock also counts
 * the time the thread waits for a core, which says nothing about the code
 * (on an idle machine the two agree; the wall clock is printed too).
 */
static double now(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	/* Launch shapes: the measured ones, between them and beyond (16, so i & 15 picks one). */
	static const int ts[16] = { 1, 2, 3, 5, 7, 12, 16, 40, 128, 300, 1024, 2048, 4096, 9, 64, 1 };
	static const int ds[16] = { 4096, 4096, 1001, 5000, 5120, 4096, 4096, 8192,
				    11008, 11008, 14336, 14336, 14336, 2048, 4096, 14336 };
	static const int rows[16] = { 1, 3, 8, 20, 64, 100, 512, 1000, 4096, 9000, 65536, 2, 30, 700, 20000, 6 };
	long n = argc > 2 ? atol(argv[2]) : 1000000, i;
	int silu_run = argc > 1 && !strcmp(argv[1], "silu");
	double t0, w0;

	t0 = now(CLOCK_THREAD_CPUTIME_ID);
	w0 = now(CLOCK_MONOTONIC);
	if (silu_run) {
		for (i = 0; i < n; i++) {
			int t = ts[i & 15], d = ds[i & 15];
			silu<__half><<<(t * d + 255) / 256, 256, 0, 0>>>((__half *)0, (const __half *)0, t, d);
		}
	} else {
		for (i = 0; i < n; i++) {
			int r = rows[i & 15];
			rowsum<<<r, 1, 0, 0>>>((float *)0, (const float *)0, r, 4096);
		}
	}
	printf("%.3f %.3f\n", (now(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e9 / (double)n,
	       (now(CLOCK_MONOTONIC) - w0) * 1e9 / (double)n);
	return 0;
}
