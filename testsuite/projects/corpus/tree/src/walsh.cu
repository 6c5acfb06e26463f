#include "walsh_kernel.cuh"
int main(void) { return 0; }
