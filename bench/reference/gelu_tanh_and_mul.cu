/*
 * gelu_tanh_and_mul, hand-optimized: each thread owns 8 consecutive
 * outputs of one token and moves them with one 128-bit load of the gate,
 * one of the up half and one 128-bit store.  GELU uses the exact identity
 * 0.5 x (1 + tanh(u)) = x * sigmoid(2u), which __expf and __fdividef
 * evaluate without tanhf and without the cancellation of 1 + tanh(u) for
 * negative x.  Rows that are not a multiple of 8 long, or misaligned
 * pointers, take the same 8-element chunks with scalar accesses.
 */
__device__ __forceinline__ float gelu_tanh_and_mul_gelu(float x)
{
	const float k0 = 0.7978845608028654f; /* sqrt(2/pi) */
	const float k1 = 0.044715f;
	float u = k0 * (x + k1 * x * x * x);
	return __fdividef(x, 1.0f + __expf(-2.0f * u));
}

#pragma astra launch(grid=(tokens * ((d + 7) / 8) + 255) / 256, block=256)
template <typename T>
__global__ void gelu_tanh_and_mul(T *out, const T *input, int tokens, int d)
{
	int chunks = (d + 7) / 8;
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= tokens * chunks)
		return;
	int t = c / chunks;
	int j = c % chunks * 8;
	const T *gate = input + (size_t)t * 2 * d;
	const T *up = gate + d;
	T *o = out + (size_t)t * d;

	bool vec = sizeof(T) == 2 && d % 8 == 0 && (((size_t)input | (size_t)out) & 15) == 0;
	if (vec) {
		alignas(16) T g[8], u[8], r[8];
		*reinterpret_cast<uint4 *>(g) = *reinterpret_cast<const uint4 *>(gate + j);
		*reinterpret_cast<uint4 *>(u) = *reinterpret_cast<const uint4 *>(up + j);
#pragma unroll
		for (int k = 0; k < 8; k++)
			r[k] = (T)(gelu_tanh_and_mul_gelu((float)g[k]) * (float)u[k]);
		*reinterpret_cast<uint4 *>(o + j) = *reinterpret_cast<uint4 *>(r);
	} else {
		int end = min(j + 8, d);
		for (int k = j; k < end; k++)
			o[k] = (T)(gelu_tanh_and_mul_gelu((float)gate[k]) * (float)up[k]);
	}
}
