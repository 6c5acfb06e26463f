// vecops.cuh - device helpers shared by the library's kernels.
#pragma once
#include <cuda_runtime.h>

__device__ __forceinline__ float axpy(float a, float x, float y) { return a * x + y; }
__device__ float block_sum(float v);          // defined in reduce.cu (relocatable device code)
extern __device__ unsigned long long g_launches; // defined in counters.cu

void launch_saxpy(float a, const float *x, float *y, int n);
void launch_sum(const float *x, float *out, int n);
void launch_scale(float *x, float s, int n);
unsigned long long launches(void);
