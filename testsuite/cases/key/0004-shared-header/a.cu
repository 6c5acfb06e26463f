#define WIDTH 256
#include "kern.cuh"
void a(float *p) { shared_kernel<<<4, WIDTH>>>(p, 1024); }
