/*
 * embedding, hand-optimized: a block of 128 threads per token instead of
 * a thread per token, copying the row with 128-bit loads and stores when
 * hidden is a multiple of the vector width and both pointers are 16-byte
 * aligned (scalar strided copies otherwise), so every access is coalesced
 * and tokens blocks keep all SMs busy.  Padding ids still give zeros.
 */
#pragma astra launch(grid=tokens, block=128)
template <typename T>
__global__ void embedding(T *out, const int *ids, const T *table, int tokens, int hidden,
			  int vocab)
{
	constexpr int V = 16 / sizeof(T);
	int id = ids[blockIdx.x];
	T *o = out + (size_t)blockIdx.x * hidden;
	bool valid = id >= 0 && id < vocab;
	const T *row = table + (size_t)(valid ? id : 0) * hidden;
	bool vec = hidden % V == 0 && (((size_t)out | (size_t)table) & 15) == 0;

	if (vec) {
		for (int i = threadIdx.x * V; i < hidden; i += blockDim.x * V) {
			uint4 v = valid ? *reinterpret_cast<const uint4 *>(row + i)
					: make_uint4(0u, 0u, 0u, 0u);
			*reinterpret_cast<uint4 *>(o + i) = v;
		}
	} else {
		for (int i = threadIdx.x; i < hidden; i += blockDim.x)
			o[i] = valid ? row[i] : (T)0.0f;
	}
}
