#pragma once
__device__ __forceinline__ float load(const float *p, int i) { return __ldg(p + i); }
