// another TU, other host code
#define WIDTH 256
#include "kern.cuh"
int b(void) { return 42; }
