#pragma astra launch(grid=rows, block=256)
__global__ void rowsum(float *out, const float *x, int rows, int cols)
{
	__shared__ float part[256];
	float s = 0;
	for (int j = threadIdx.x; j < cols; j += 256)
		s += x[blockIdx.x * cols + j];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int w = 128; w; w >>= 1) {
		if (threadIdx.x < w)
			part[threadIdx.x] += part[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = part[0];
}
