#pragma once
template <typename T> __device__ inline T mul_add(T a, T b, T c) { return a * b + c; }
static const char *detail_file = __FILE__;
