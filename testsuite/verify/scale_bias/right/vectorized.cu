// expect: accepted
// Four elements per thread with a 16-byte path when the pointers and the
// row length allow it, and a scalar path otherwise (misaligned pointers,
// odd shapes); the grid shrinks accordingly (its own launch geometry).
#pragma astra launch(grid=(rows*cols + 1023) / 1024, block=256)
template <typename T>
__global__ void scale_bias(T *out, const T *x, const T *bias, float scale, int rows, int cols)
{
	int n = rows * cols;
	int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
	if (i >= n)
		return;
	bool vec = sizeof(T) == 4 && i + 4 <= n && cols % 4 == 0 &&
		   (((size_t)out | (size_t)x | (size_t)bias) & 15) == 0;
	if (vec) {
		float4 v = *reinterpret_cast<const float4 *>(x + i);
		float4 b = *reinterpret_cast<const float4 *>(bias + i % cols);
		float4 r;
		r.x = v.x * scale + b.x;
		r.y = v.y * scale + b.y;
		r.z = v.z * scale + b.z;
		r.w = v.w * scale + b.w;
		*reinterpret_cast<float4 *>(out + i) = r;
		return;
	}
	for (int k = i; k < i + 4 && k < n; k++)
		out[k] = (T)((float)x[k] * scale + (float)bias[k % cols]);
}
