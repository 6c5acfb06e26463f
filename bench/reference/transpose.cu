/*
 * transpose, hand-optimized: the classic shared-memory tiled transpose.
 * A 256-thread block (32 x 8) moves one 32 x 32 tile: coalesced loads of
 * tile rows, a padded shared tile (33 columns, no bank conflicts on the
 * column read), coalesced stores of the transposed rows.  A 1-D grid over
 * the tiles avoids the 65535 limit of gridDim.y; edge tiles are guarded.
 */
#pragma astra launch(grid=((rows + 31) / 32) * ((cols + 31) / 32), block=256)
template <typename T>
__global__ void transpose(T *out, const T *in, int rows, int cols)
{
	__shared__ T tile[32][33];
	int tiles_c = (cols + 31) / 32;
	int r0 = blockIdx.x / tiles_c * 32;
	int c0 = blockIdx.x % tiles_c * 32;
	int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;

#pragma unroll
	for (int k = ty; k < 32; k += 8) {
		int r = r0 + k, c = c0 + tx;
		if (r < rows && c < cols)
			tile[k][tx] = in[(size_t)r * cols + c];
	}
	__syncthreads();
#pragma unroll
	for (int k = ty; k < 32; k += 8) {
		int c = c0 + k, r = r0 + tx;
		if (c < cols && r < rows)
			out[(size_t)c * rows + r] = tile[tx][k];
	}
}
