/*
 * layer.cu - the kernels of the demo, as a first correct version, with the
 * `#pragma astra` annotations that tell astra-cc how to test and time them
 * (the shapes to try, each pointer's element count, what is written, the
 * launch geometry, the types to instantiate).  Built with plain nvcc they
 * are ordinary kernels; built with `make NVCC=astra-cc` each may be replaced
 * by a verified faster variant.  The launches live in this file, so a
 * variant may bring its own grid and block.
 */
#include <cuda_bf16.h>
#include <math.h>

#include "layer.h"

#pragma astra optimize
#pragma astra shapes(rows=2048, cols=8192) shapes(rows=64, cols=4096)
#pragma astra shapes(rows=7, cols=5120) shapes(rows=1, cols=4096)
#pragma astra buffers(out[rows*cols], residual[rows*cols], x[rows*cols], w[cols])
#pragma astra outputs(out, residual)
#pragma astra launch(grid=rows, block=256)
#pragma astra types(T=__nv_bfloat16)
#pragma astra scalars(eps=1e-6f)
#pragma astra range(x: -2 .. 2) range(residual: -2 .. 2)
#pragma astra noalias
template <typename T>
__global__ void fused_add_rmsnorm(T *out, T *residual, const T *x, const T *w, float eps,
				  int rows, int cols)
{
	__shared__ float partial[256];
	T *res = residual + (size_t)blockIdx.x * cols;
	const T *xr = x + (size_t)blockIdx.x * cols;
	T *outr = out + (size_t)blockIdx.x * cols;

	float sumsq = 0.0f;
	for (int i = threadIdx.x; i < cols; i += blockDim.x) {
		T s = (T)((float)xr[i] + (float)res[i]);
		res[i] = s;
		float v = (float)s;
		sumsq += v * v;
	}
	partial[threadIdx.x] = sumsq;
	__syncthreads();
	for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
		if (threadIdx.x < stride)
			partial[threadIdx.x] += partial[threadIdx.x + stride];
		__syncthreads();
	}
	float inv = 1.0f / sqrtf(partial[0] / cols + eps);
	for (int i = threadIdx.x; i < cols; i += blockDim.x)
		outr[i] = (T)((float)res[i] * inv * (float)w[i]);
}

#pragma astra optimize
#pragma astra shapes(tokens=2048, d=14336) shapes(tokens=64, d=11008)
#pragma astra shapes(tokens=7, d=5120) shapes(tokens=1, d=4096) shapes(tokens=3, d=1001)
#pragma astra buffers(out[tokens*d], input[tokens*2*d])
#pragma astra outputs(out)
#pragma astra launch(grid=(tokens*d + 255)/256, block=256)
#pragma astra types(T=__nv_bfloat16)
#pragma astra range(input: -8 .. 8)
#pragma astra tolerance(out: rtol=1e-2, atol=1e-3)
#pragma astra noalias
template <typename T>
__global__ void silu_and_mul(T *out, const T *input, int tokens, int d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= tokens * d)
		return;
	int t = i / d;
	int j = i % d;
	float gate = (float)input[t * 2 * d + j];
	float up = (float)input[t * 2 * d + d + j];
	out[i] = (T)(gate / (1.0f + expf(-gate)) * up);
}

/* thread-per-row: the version astra-cc gains the most on */
#pragma astra optimize
#pragma astra shapes(rows=4096, cols=4096) shapes(rows=64, cols=32000)
#pragma astra shapes(rows=7, cols=5120) shapes(rows=1, cols=4096) shapes(rows=33, cols=1000)
#pragma astra buffers(out[rows*cols], x[rows*cols])
#pragma astra outputs(out)
#pragma astra launch(grid=(rows + 127)/128, block=128)
#pragma astra range(x: -10 .. 10)
#pragma astra tolerance(out: rtol=1e-4, atol=1e-7)
#pragma astra noalias
__global__ void softmax(float *out, const float *x, int rows, int cols)
{
	int row = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= rows)
		return;
	const float *xr = x + (size_t)row * cols;
	float *outr = out + (size_t)row * cols;

	float m = -INFINITY;
	for (int i = 0; i < cols; i++)
		m = fmaxf(m, xr[i]);
	float sum = 0.0f;
	for (int i = 0; i < cols; i++)
		sum += expf(xr[i] - m);
	for (int i = 0; i < cols; i++)
		outr[i] = expf(xr[i] - m) / sum;
}

void layer_add_rmsnorm(__nv_bfloat16 *out, __nv_bfloat16 *residual, const __nv_bfloat16 *x,
		       const __nv_bfloat16 *w, float eps, int rows, int cols, cudaStream_t stream)
{
	fused_add_rmsnorm<<<rows, 256, 0, stream>>>(out, residual, x, w, eps, rows, cols);
}

void layer_silu_and_mul(__nv_bfloat16 *out, const __nv_bfloat16 *gate_up, int tokens, int d,
			cudaStream_t stream)
{
	silu_and_mul<<<(tokens * d + 255) / 256, 256, 0, stream>>>(out, gate_up, tokens, d);
}

void layer_softmax(float *out, const float *x, int rows, int cols, cudaStream_t stream)
{
	softmax<<<(rows + 127) / 128, 128, 0, stream>>>(out, x, rows, cols);
}
