#include <cuda_fp16.h>
#include <cuda_bf16.h>

#pragma astra shapes(n=1000)
#pragma astra buffers(out[n], x[n], d[n])
#pragma astra outputs(out, d)
#pragma astra launch(grid=(n + 255) / 256, block=256)
__global__ void mathy(float *out, const float *x, double *d, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float a = expf(-v) + logf(v + 10.0f) + 1.0f / sqrtf(v * v + 1.0f);
	float b = v / (1.0f + a);        /* float division: __fdividef */
	float c = 1.0f / (a + 2.0f);      /* reciprocal: __frcp_rn */
	float t = tanhf(v) + v / 3.0f;    /* division by a constant stays */
	int q = n / 7;                    /* integer division stays */
	d[i] = d[i] / 3.0 + exp((double)v);  /* double math stays */
	float s = a + 1.0f; // set once: its reciprocal, right after
	float e = v / s + x[0] / s;       /* multiplied by it */
	float r = 2.0f;
	r += v;
	float g = v / r;                  /* r changes: __fdividef */
	out[i] = a + b + c + t + q + e + g;
}
