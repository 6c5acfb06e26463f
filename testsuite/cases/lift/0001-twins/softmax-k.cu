// Softmax with the row length K a template parameter: a block per row
// with one element per thread (block = K), the row's maximum and sum by
// block-reduce helpers (shuffles with fmaxf and +, per-warp partials in
// shared memory), lifts to the same computation as a thread per row.
#include <cuda_runtime.h>

template <int NT>
__device__ float block_max(float v)
{
	__shared__ float parts[NT / 32];
	__shared__ float all;
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	for (int o = 16; o > 0; o >>= 1)
		v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
	if (lane == 0)
		parts[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < NT / 32 ? parts[lane] : -INFINITY;
		for (int o = 16; o > 0; o >>= 1)
			v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
		if (lane == 0)
			all = v;
	}
	__syncthreads();
	return all;
}

template <int NT>
__device__ float block_sum(float v)
{
	__shared__ float parts[NT / 32];
	__shared__ float all;
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffff, v, o);
	if (lane == 0)
		parts[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < NT / 32 ? parts[lane] : 0.0f;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_down_sync(0xffffffff, v, o);
		if (lane == 0)
			all = v;
	}
	__syncthreads();
	return all;
}

#pragma astra optimize
#pragma astra shapes(rows=37) types(K=128) types(K=1024) buffers(out[rows*K], x[rows*K]) outputs(out)
#pragma astra launch(grid=(rows + 127) / 128, block=128)
template <int K>
__global__ void smk__ref(float *out, const float *x, int rows)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float m = -INFINITY, s = 0.0f;
	for (int c = 0; c < K; c++)
		m = fmaxf(m, x[r * K + c]);
	for (int c = 0; c < K; c++)
		s += expf(x[r * K + c] - m);
	for (int c = 0; c < K; c++)
		out[r * K + c] = expf(x[r * K + c] - m) / s;
}

#pragma astra optimize
#pragma astra shapes(rows=37) types(K=128) types(K=1024) buffers(out[rows*K], x[rows*K]) outputs(out)
#pragma astra launch(grid=rows, block=K)
template <int K>
__global__ void smk__one(float *out, const float *x, int rows)
{
	float v = x[blockIdx.x * K + threadIdx.x];
	float m = block_max<K>(v);
	float e = expf(v - m);
	float s = block_sum<K>(e);
	out[blockIdx.x * K + threadIdx.x] = e / s;
}
