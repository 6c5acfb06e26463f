#include "k.h"
__global__ void k(float *x) { x[0] = K; }
