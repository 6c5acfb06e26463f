// Malformed pragmas: a GNU-style warning each, the kernel is left alone,
// and the exit status stays 0 (strict mode: see 0008-strict).
#pragma astra shapes(n=1024) bufers(x[n]) outputs(x) launch(grid=n, block=1)
__global__ void typo(float *x, int n) { x[0] = n; }

#pragma astra shapes(n=1024 buffers(x[n]) outputs(x)
#pragma astra launch(grid=n, block=1)
__global__ void unclosed(float *x, int n) { x[0] = n; }

#pragma astra shapes(rows=4, cols=8) buffers(out[rows*cols], w[cols) outputs(out)
__global__ void bracket(float *out, const float *w, int rows, int cols) { out[0] = w[0]; }

#pragma astra shapes(n=16) buffers(x[n], y[n]) outputs(x, y) launch(grid=1, block=n)
__global__ void const_output(float *x, const float *y, int n, float alpha) { x[0] = y[0]; }

#pragma astra shapes(n=16) buffers(x[n]) outputs(x) launch(grid=1, block=n) \
	tolerance(x: rtol=-1)
__global__ void continued(float *x, int n) { x[0] = n; }

#pragma astra shapes(n=16) buffers(x[n]) outputs(x) launch(grid=1, block=n)
__global__ void fine(float *x, int n) { x[0] = n; }
