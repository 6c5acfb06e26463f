// Half the work (the first n/2 elements, half the grid): wrong, and timed
// only (--timing-only); it must measure 2x within 10 %.  Its bytes per
// launch are half the pragma's, so it also shows the roofline check
// flagging a rate above the device's ceiling.
#pragma astra launch(grid=(n / 2 + 255) / 256, block=256)
__global__ void copy_scale(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n / 2)
		out[i] = 2.0f * x[i];
}
