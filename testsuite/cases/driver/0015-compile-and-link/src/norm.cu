#pragma astra optimize
__global__ void rownorm(float *out, const float *in, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float s = 0.0f;
	for (int c = 0; c < cols; c++)
		s += in[r * cols + c] * in[r * cols + c];
	out[r] = s;
}

void launch_rownorm(float *out, const float *in, int rows, int cols)
{
	rownorm<<<(rows + 127) / 128, 128>>>(out, in, rows, cols);
}
