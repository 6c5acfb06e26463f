/*
 * Style: a block per row whose maximum is reduced in `__device__` helpers
 * (warp shuffles, then the warps' results through shared memory), with
 * warpSize and `fabsf`/`fmaxf`; int8 output and a float scale per row.
 * Computes: symmetric per-token int8 quantization: scale = absmax / 127,
 * q = round(x * 127 / absmax), fp16 input.
 * Flags: none
 * Expect: vectorize
 */
#include <cuda_fp16.h>
#include <stdint.h>

__device__ __forceinline__ float warp_reduce_max(float val)
{
	for (int offset = warpSize / 2; offset > 0; offset /= 2)
		val = fmaxf(val, __shfl_down_sync(0xffffffff, val, offset));
	return val;
}

__device__ float block_reduce_max(float val)
{
	static __shared__ float shared[32];
	int lane = threadIdx.x % warpSize;
	int wid = threadIdx.x / warpSize;
	val = warp_reduce_max(val);
	if (lane == 0)
		shared[wid] = val;
	__syncthreads();
	val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0.0f;
	if (wid == 0)
		val = warp_reduce_max(val);
	return val;
}

#pragma astra optimize noalias
#pragma astra shapes(tokens=4096, hidden=8192) shapes(tokens=256, hidden=4096) shapes(tokens=5, hidden=1001) \
	shapes(tokens=1, hidden=3)
#pragma astra buffers(q[tokens*hidden], scales[tokens], x[tokens*hidden]) outputs(q, scales)
#pragma astra launch(grid=tokens, block=256)
#pragma astra range(x: -4 .. 4) flops(3*tokens*hidden)
__global__ void quant_int8_rowwise(int8_t *q, float *scales, const __half *x, int tokens, int hidden)
{
	__shared__ float s_absmax;
	const __half *xr = x + (size_t)blockIdx.x * hidden;
	float local = 0.0f;
	for (int j = threadIdx.x; j < hidden; j += blockDim.x)
		local = fmaxf(local, fabsf(__half2float(xr[j])));
	float absmax = block_reduce_max(local);
	if (threadIdx.x == 0) {
		s_absmax = absmax;
		scales[blockIdx.x] = absmax / 127.0f;
	}
	__syncthreads();
	float inv = s_absmax > 0.0f ? 127.0f / s_absmax : 0.0f;
	int8_t *qr = q + (size_t)blockIdx.x * hidden;
	for (int j = threadIdx.x; j < hidden; j += blockDim.x)
		qr[j] = (int8_t)roundf(__half2float(xr[j]) * inv);
}
