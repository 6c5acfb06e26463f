#pragma once
__device__ inline float twice(float a) { return 2.0f * a; }
