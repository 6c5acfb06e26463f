// A plain TU: helpers, macros, types and globals of the file are the
// kernel's dependencies when (and only when) it uses them.
#include <cstdio>


#define SQ(x) ((x) * (x))
#define UNUSED_MACRO 42
#define SCALE 2.0f
#define TWICE(x) (SCALE * (x))

struct Pair {
	float a, b;
};

typedef struct {
	int lo, hi;
} Span;

enum Mode { MODE_FAST, MODE_SLOW };

__constant__ float coeffs[4];
__device__ int counter;

__device__ __forceinline__ float helper(float v)
{
	return TWICE(SQ(v)) + coeffs[0];
}

__device__ float unused_helper(float v) { return v; }

/* Comments and strings that mention the pragma are not pragmas:
#pragma astra optimize
*/
static const char *banner = "#pragma astra optimize";
// #pragma astra shapes(n=1)

#pragma astra shapes(n=1024) shapes(n=7) scalars(m=MODE_FAST)
#pragma astra buffers(x[n], y[n], p[n])  // the element counts
#pragma astra outputs(y) \
              launch(grid=(n + 255) / 256, block=256)
__global__ void scale(const float *__restrict__ x, float *y, const Pair *p, Mode m, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = helper(x[i]) * p[i].a + (m == MODE_FAST ? 1 : 0);
}

// Not annotated: not listed.
__global__ void plain(float *x) { x[0] = 0; }

int main()
{
	float *x = 0, *y = 0;
	Pair *p = 0;
	cudaStream_t s = 0;
	int n = 1024, i = 0;
	printf("%s\n", banner);
	scale<<<(n + 255) / 256, 256, 0, s>>>(x, y + i++, p, MODE_FAST, n);
	plain<<<1, 1>>>(x);
	scale<<<dim3(4, 1), dim3(256)>>>(x, y, p, /* comment */ MODE_SLOW, n);
	return 0;
}
