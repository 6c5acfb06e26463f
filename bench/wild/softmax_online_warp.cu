/*
 * Style: an already optimized production kernel: a warp per row with the
 * rows of a block along threadIdx.y (block 32 x 4), an online softmax
 * (maximum and sum in one pass, the sum rescaled when the maximum grows),
 * warp shuffles, `std::numeric_limits` in device code (so the build needs
 * --expt-relaxed-constexpr).  The test is: no regression.
 * Computes: the softmax of each row of an fp32 [rows, cols] matrix.
 * Flags: --expt-relaxed-constexpr
 * Expect: none (already optimized: no regression)
 */
#include <cuda_runtime.h>
#include <limits>

#pragma astra optimize noalias
#pragma astra shapes(rows=16384, cols=2048) shapes(rows=2048, cols=512) shapes(rows=33, cols=1000) shapes(rows=1, cols=7)
#pragma astra buffers(out[rows*cols], in[rows*cols]) outputs(out)
#pragma astra launch(grid=(rows + 3) / 4, block=dim3(32, 4))
#pragma astra range(in: -10 .. 10) tolerance(rtol=1e-4, atol=1e-6) flops(5*rows*cols)
__global__ void softmax_online_warp(float *__restrict__ out, const float *__restrict__ in, int rows, int cols)
{
	const int row = blockIdx.x * blockDim.y + threadIdx.y;
	const int lane = threadIdx.x;
	if (row >= rows)
		return;
	const float *x = in + (size_t)row * cols;
	float m = -std::numeric_limits<float>::infinity();
	float s = 0.0f;
	for (int j = lane; j < cols; j += 32) {
		float v = x[j];
		if (v > m) {
			s *= __expf(m - v);
			m = v;
		}
		s += __expf(v - m);
	}
#pragma unroll
	for (int off = 16; off > 0; off >>= 1) {
		float om = __shfl_xor_sync(0xffffffffu, m, off);
		float os = __shfl_xor_sync(0xffffffffu, s, off);
		float nm = fmaxf(m, om);
		if (nm != -std::numeric_limits<float>::infinity()) { /* a lane with no column yet */
			s = s * __expf(m - nm) + os * __expf(om - nm);
			m = nm;
		}
	}
	const float inv = 1.0f / s;
	float *y = out + (size_t)row * cols;
	for (int j = lane; j < cols; j += 32)
		y[j] = __expf(x[j] - m) * inv;
}
