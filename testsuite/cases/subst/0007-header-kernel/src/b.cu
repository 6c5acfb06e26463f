#include "inc/kern.cuh"

void run_b(double *y, const double *x, int n)
{
	int unused;
	axpy<<<(n + 127) / 128, 128>>>(y, x, 3.0, n);
}
