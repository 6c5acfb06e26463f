#include <vector>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Parameters whose types come from headers the extraction does not read.
void prep(std::vector<int> w) { }

__device__ float warp_sum(cg::thread_block_tile<32> &warp, float v)
{
	for (int o = 16; o > 0; o /= 2)
		v += warp.shfl_down(v, o);
	return v;
}

static void fill(std::vector<float> &host, const std::size_t n) const { }

namespace app {
void load(const std::map<int, std::vector<int>> &m) { }
}

#pragma astra optimize
__global__ void k1(float *a, int n) { a[0] = n; }

#pragma astra optimize
__global__ void k2(float *out, const float *in, int n)
{
	auto block = cg::this_thread_block();
	auto warp = cg::tiled_partition<32>(block);
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = warp_sum(warp, i < n ? in[i] : 0.0f);
	if (warp.thread_rank() == 0)
		out[i / 32] = v;
}

void f(float *o, const float *in) { k1<<<1, 256>>>(o, 1); k2<<<4, 256>>>(o, in, 1024); }
