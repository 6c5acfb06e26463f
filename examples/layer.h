/*
 * layer.h - the GPU half of the demo: three kernels of a decoder layer
 * (defined in layer.cu, annotated for astra-cc) behind plain host
 * functions, so main.cu needs no CUDA kernel syntax.
 *
 * Every pointer is device memory owned by the caller; each function only
 * enqueues its kernel on stream.
 */
#ifndef LAYER_H
#define LAYER_H

#include <cuda_runtime.h>
#include <cuda_bf16.h>

/* residual += x (in place); out = rmsnorm(residual) * w.  [rows, cols] */
void layer_add_rmsnorm(__nv_bfloat16 *out, __nv_bfloat16 *residual, const __nv_bfloat16 *x,
		       const __nv_bfloat16 *w, float eps, int rows, int cols, cudaStream_t stream);

/* out[t][i] = silu(gate_up[t][i]) * gate_up[t][d + i].  out [tokens, d] */
void layer_silu_and_mul(__nv_bfloat16 *out, const __nv_bfloat16 *gate_up, int tokens, int d,
			cudaStream_t stream);

/* out = softmax(x) along each row.  [rows, cols] */
void layer_softmax(float *out, const float *x, int rows, int cols, cudaStream_t stream);

#endif
