/*
 * copy_scale - the timing protocol's yardstick (bench/verify-gpu.sh): a
 * purely memory-bound kernel that reads 256 MB and writes 256 MB, so that
 * a variant doing half the work must measure twice as fast.
 */
#pragma astra optimize
#pragma astra shapes(n=67108864)
#pragma astra buffers(out[n], x[n])
#pragma astra outputs(out)
#pragma astra launch(grid=(n + 255) / 256, block=256)
#pragma astra flops(n)
__global__ void copy_scale(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 2.0f * x[i];
}
