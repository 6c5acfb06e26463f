#include <cuda_fp16.h>
#pragma astra optimize
#pragma astra shapes(rows=4096, cols=8192) shapes(rows=7, cols=5120)
#pragma astra shapes(rows=1, cols=33)
#pragma astra buffers(out[rows*cols], in[(rows + 1) * (cols)], w[cols])
#pragma astra outputs(out) launch(grid=dim3((cols + 31) / 32, rows), block=dim3(32, 8), shmem=32*33*sizeof(float))
#pragma astra types(T=float) types(T=__half)
#pragma astra scalars(eps=1e-6f, scale=0.5f) range(in: -4.5 .. 4) range(w: 0 .. 1)
#pragma astra tolerance(rtol=1e-3, atol=1e-4) tolerance(out: rtol=0, atol=0)
#pragma astra noalias flops(2*rows*cols)
template <typename T>
__global__ void demo(T *out, const T *in, const T *w, float eps, float scale, int rows, int cols)
{
}
