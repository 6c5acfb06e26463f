__global__ void broken(float *x)
{
	x[0] = 1.0f  /* missing semicolon */
}
