__global__ void w(float *x) { int unused; x[0] = 1.0f; }
