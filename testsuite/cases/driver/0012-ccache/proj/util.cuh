#pragma once
__device__ inline float twice(float a) { return SCALE * a; }
static const char *util_file = __FILE__;
