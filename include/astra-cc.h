/*
 * astra-cc.h - the annotation macro of astra-cc, for CUDA sources.
 *
 *   #include <astra-cc.h>
 *
 *   ASTRA(shapes(n=1048576) shapes(n=1000) buffers(x[n], y[n]) outputs(y))
 *   ASTRA(launch(grid=(n + 255) / 256, block=256))
 *   __global__ void saxpy(float a, const float *x, float *y, int n) { ... }
 *
 * ASTRA(clauses) on a line of its own says what `#pragma astra clauses`
 * says (doc/pragma.md), but it expands to nothing, so no compiler sees a
 * pragma it does not know: nvcc's host compiler stays quiet under -Wall
 * (-Wunknown-pragmas) and -Werror builds pass, with plain nvcc as with
 * astra-cc.  astra-cc reads the source text, not this definition.
 *
 * This header is installed with astra-cc; a project that must also build
 * where astra-cc is not installed can copy it, or define the macro itself
 * (`#define ASTRA(...)`) behind `#if __has_include(<astra-cc.h>)`.
 * It may be included any number of times.
 */
#ifndef ASTRA
#define ASTRA(...)
#endif
