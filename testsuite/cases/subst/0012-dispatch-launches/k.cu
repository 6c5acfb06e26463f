/*
 * Two annotated kernels whose cache entries hold variant sets: silu reads
 * two parameters (t, d: the nearest measured shape in log space), rowsum
 * one (rows: thresholds).  main() launches them at the measured shapes,
 * between them and outside them; each launch prints its arguments, and
 * shim (bench/dispatch/launch-shim.cpp) prints the kernel it reaches.
 */
#include <cstdio>
#include <cuda_fp16.h>

#pragma astra shapes(t=2048, d=14336) shapes(t=128, d=11008) shapes(t=7, d=5120)
#pragma astra shapes(t=1, d=4096) shapes(t=3, d=1001)
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

#pragma astra shapes(rows=1, cols=4096) shapes(rows=8, cols=4096) shapes(rows=512, cols=4096)
#pragma astra shapes(rows=65536, cols=4096)
#pragma astra buffers(out[rows], x[rows*cols]) outputs(out)
#pragma astra launch(grid=rows, block=1)
__global__ void rowsum(float *out, const float *x, int rows, int cols)
{
	float s = 0;
	for (int j = 0; j < cols; j++)
		s += x[blockIdx.x * cols + j];
	out[blockIdx.x] = s;
}

static void silu_at(int t, int d, cudaStream_t s)
{
	printf("silu t=%d,d=%d:", t, d);
	fflush(stdout);
	silu<__half><<<(t * d + 255) / 256, 256, 0, s>>>((__half *)0, (const __half *)0, t, d);
}

static void rowsum_at(int rows, cudaStream_t s)
{
	printf("rowsum rows=%d:", rows);
	fflush(stdout);
	rowsum<<<rows, 1, 0, s>>>((float *)0, (const float *)0, rows, 4096);
}

int main()
{
	static const int silu_launches[][2] = {
		/* the measured shapes */
		{ 2048, 14336 }, { 128, 11008 }, { 7, 5120 }, { 1, 4096 }, { 3, 1001 },
		/* between them, and outside */
		{ 1024, 14336 }, { 16, 4096 }, { 2, 4096 }, { 5, 5000 }, { 65536, 8192 }, { 0, 4096 },
	};
	static const int rows_launches[] = { 1, 8, 512, 65536, 0, 63, 64, 5792, 5793, 1000000 };
	for (const auto &l : silu_launches)
		silu_at(l[0], l[1], 0);
	for (int r : rows_launches)
		rowsum_at(r, 0);
	return 0;
}
