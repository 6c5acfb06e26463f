/* Declares what the kernel's header uses but does not include (as
 * cuda-samples' helper_cuda.h declares getLastCudaError). */
#ifndef HELPER_H
#define HELPER_H
#include <cstdio>
inline void check_last(const char *what) { (void)what; }
#endif
