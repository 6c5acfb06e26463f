// expect: rejected misaligned
// Vector loads without an alignment check: right while the buffers start on
// 16 bytes (the scalar tail handles odd lengths), a fault when a caller
// passes a pointer into the middle of an array.
#pragma astra launch(grid=(rows*cols + 1023) / 1024, block=256)
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	int n = rows * cols;
	int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
	if (i >= n)
		return;
	if (sizeof(T) == 4 && i + 4 <= n && cols % 4 == 0) {
		float4 v = *reinterpret_cast<const float4 *>(x + i);
		float4 b = *reinterpret_cast<const float4 *>(bias + i % cols);
		float4 r = { v.x * scale + b.x, v.y * scale + b.y, v.z * scale + b.z, v.w * scale + b.w };
		*reinterpret_cast<float4 *>(out + i) = r;
		return;
	}
	for (int k = i; k < i + 4 && k < n; k++)
		out[k] = (T)((float)x[k] * scale + (float)bias[k % cols]);
}
