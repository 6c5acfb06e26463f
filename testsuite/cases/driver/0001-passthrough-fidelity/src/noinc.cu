#include "does_not_exist.cuh"
__global__ void k(float *x) { x[0] = 1.0f; }
