#pragma astra optimize
__global__ void k(float *a, int n) { a[0] = n + undefined_here; }
int main() { return 0; }
