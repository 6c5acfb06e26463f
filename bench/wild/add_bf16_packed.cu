/*
 * Style: an already vectorized production kernel: eight bf16 values per
 * thread moved as one uint4 (`reinterpret_cast`), `__nv_bfloat162` pairs
 * converted with the pair intrinsics, a scalar tail for the last partial
 * pack; it assumes 16-byte aligned buffers.  The test is: no regression.
 * Computes: out = a + b * alpha over bf16 tensors (a scaled residual add).
 * Flags: none
 * Expect: none (already vectorized: no regression)
 */
#include <cuda_bf16.h>
#include <stdint.h>

#pragma astra optimize noalias
#pragma astra shapes(n=67108864) shapes(n=4194304) shapes(n=5123) shapes(n=7) shapes(n=1)
#pragma astra buffers(out[n], a[n], b[n]) outputs(out)
#pragma astra launch(grid=(n / 8 + 1 + 255) / 256, block=256)
#pragma astra scalars(alpha=0.5f) tolerance(rtol=2e-2, atol=2e-2) flops(2*n)
__global__ void add_bf16_packed(__nv_bfloat16 *__restrict__ out, const __nv_bfloat16 *__restrict__ a,
				const __nv_bfloat16 *__restrict__ b, float alpha, int n)
{
	int pack = blockIdx.x * blockDim.x + threadIdx.x;
	int base = pack * 8;
	if (base + 8 <= n) {
		uint4 va = *reinterpret_cast<const uint4 *>(a + base);
		uint4 vb = *reinterpret_cast<const uint4 *>(b + base);
		const __nv_bfloat162 *pa = reinterpret_cast<const __nv_bfloat162 *>(&va);
		const __nv_bfloat162 *pb = reinterpret_cast<const __nv_bfloat162 *>(&vb);
		uint4 vo;
		__nv_bfloat162 *po = reinterpret_cast<__nv_bfloat162 *>(&vo);
#pragma unroll
		for (int k = 0; k < 4; k++) {
			float2 fa = __bfloat1622float2(pa[k]);
			float2 fb = __bfloat1622float2(pb[k]);
			po[k] = __floats2bfloat162_rn(fa.x + fb.x * alpha, fa.y + fb.y * alpha);
		}
		*reinterpret_cast<uint4 *>(out + base) = vo;
	} else if (base < n) {
		for (int j = base; j < n; j++)
			out[j] = __float2bfloat16(__bfloat162float(a[j]) + __bfloat162float(b[j]) * alpha);
	}
}
