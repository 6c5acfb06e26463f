// style: element type via using, conversions via intrinsics, 64-bit index
// expect: elems-per-thread grid-stride
#include <cuda_bf16.h>
#include <stdint.h>
using bf16 = __nv_bfloat16;
#pragma astra shapes(n=100000) shapes(n=1001)
#pragma astra buffers(out[n], a[n], b[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra noalias
__global__ void add_bf16(bf16 *out, const bf16 *a, const bf16 *b, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	out[i] = __float2bfloat16(__bfloat162float(a[i]) + __bfloat162float(b[i]));
}
