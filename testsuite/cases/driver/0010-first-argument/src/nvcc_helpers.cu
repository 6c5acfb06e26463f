__global__ void helper(float *x) { x[0] = 1.0f; }
