#define WIDTH 128
#include "kern.cuh"
