/*
 * emu-test.cu - what bench/emulate.h must do as a GPU would: typed
 * min/max, shuffles with masks and widths, votes, lanes that exited,
 * extern __shared__ memory, the waves a launch takes on the emulated
 * device, and the errors it must report instead of
 * computing something.  Built by bench/emu-build; `emu-test NAME` runs one
 * test and prints "ok NAME" or "FAIL NAME: ..." lines (exit 1); an error
 * the emulator catches ends the program with its message (exit 2).
 */
#include "emulate.h"

#include <string>

static int failures;
#define EXPECT(cond, ...)                                                  \
	do {                                                               \
		if (!(cond)) {                                             \
			printf("FAIL %s: ", __func__);                     \
			printf(__VA_ARGS__);                               \
			printf("\n");                                      \
			failures++;                                        \
		}                                                          \
	} while (0)

namespace t {

/* ---- min/max keep their operands' type */
__global__ void minmax(long long *o64, float *of, double *od, unsigned *ou, size_t *oz)
{
	int i = threadIdx.x;
	o64[i] = min(3000000000LL + i, 3000000005LL);
	of[i] = max(0.25f * i, 1.5f);
	od[i] = min(1e300 * (i + 1), 2.5e300);
	ou[i] = max(4000000000u, (unsigned)i);
	oz[i] = max((size_t)1 << 40, (size_t)i);
}

/* ---- shuffles with widths: each lane starts with lane * 10 */
__global__ void widths(int *x16, int *down8, int *up8, int *idx8, int *idx37)
{
	int lane = threadIdx.x & 31, v = lane * 10;
	x16[threadIdx.x] = __shfl_xor_sync(0xffffffffu, v, 16, 16);
	down8[threadIdx.x] = __shfl_down_sync(0xffffffffu, v, 4, 8);
	up8[threadIdx.x] = __shfl_up_sync(0xffffffffu, v, 3, 8);
	idx8[threadIdx.x] = __shfl_sync(0xffffffffu, v, 5, 8);
	idx37[threadIdx.x] = __shfl_sync(0xffffffffu, v, 37);
}

/* ---- two half-warps, each with its own mask and number of shuffles */
__global__ void halves(int *out)
{
	int lane = threadIdx.x & 31, v = lane + 1;
	if (lane < 16) {
		for (int o = 8; o > 0; o >>= 1)
			v += __shfl_xor_sync(0x0000ffffu, v, o);
	} else {
		v = __shfl_xor_sync(0xffff0000u, v, 1);
	}
	out[threadIdx.x] = v;
}

/* ---- votes */
__global__ void votes(unsigned *ballot, int *any, int *all)
{
	int lane = threadIdx.x & 31;
	ballot[threadIdx.x] = __ballot_sync(0xffffffffu, lane % 3 == 0);
	any[threadIdx.x] = __any_sync(0xffffffffu, lane == 7) + 2 * __any_sync(0xffffffffu, 0);
	all[threadIdx.x] = __all_sync(0xffffffffu, lane < 32) + 2 * __all_sync(0xffffffffu, lane < 31);
}

/* ---- a lane that exited reads as poison */
__global__ void exited(float *out)
{
	int lane = threadIdx.x & 31;
	if (lane >= 20)
		return;
	out[threadIdx.x] = __shfl_down_sync(0xffffffffu, (float)lane, 16);
}

/* ---- extern __shared__: the launch's dynamic shared memory */
__global__ void dynamic(float *sum, float *first)
{
	extern __shared__ float s[];
	first[threadIdx.x] = s[threadIdx.x]; /* before any write: undefined (poison) */
	__syncthreads();
	s[threadIdx.x] = (float)threadIdx.x;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k >>= 1) {
		if (threadIdx.x < (unsigned)k)
			s[threadIdx.x] += s[threadIdx.x + k];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		sum[blockIdx.x] = s[0];
}

/* ---- a kernel that does nothing, for the launch statistics */
__global__ void nothing() {}

/* ---- errors */
__global__ void not_in_mask(int *out)
{
	int v = threadIdx.x;
	for (int o = 8; o > 0; o >>= 1) /* every lane, with a mask of 16 */
		v += __shfl_xor_sync(0x0000ffffu, v, o);
	out[threadIdx.x] = v;
}

__global__ void reads_outside(int *out)
{
	int lane = threadIdx.x & 31;
	if (lane < 16)
		out[lane] = __shfl_xor_sync(0x0000ffffu, lane, 16); /* lanes 16-31 are not in the mask */
}

__global__ void bad_width(int *out) { out[threadIdx.x] = __shfl_down_sync(0xffffffffu, 1, 1, 12); }

__global__ void mixed(int *out)
{
	int lane = threadIdx.x & 31;
	if (lane < 8)
		out[lane] = __shfl_down_sync(0x0000ffffu, lane, 1);
	else if (lane < 16)
		__syncwarp(0x0000ffffu);
}

__global__ void deadlock(int *)
{
	if ((threadIdx.x & 31) < 16)
		__syncwarp();
	else
		__syncthreads();
}

__global__ void overflow(float *out)
{
	extern __shared__ float s[];
	s[threadIdx.x + 1] = 1.0f; /* one float past the blockDim.x the launch gave */
	__syncthreads();
	out[threadIdx.x] = s[threadIdx.x];
}

} // namespace t

static void test_minmax()
{
	std::vector<long long> o64(32);
	std::vector<float> of(32);
	std::vector<double> od(32);
	std::vector<unsigned> ou(32);
	std::vector<size_t> oz(32);
	emu::launch(dim3(1), dim3(32), 0, t::minmax, o64.data(), of.data(), od.data(), ou.data(), oz.data());
	for (int i = 0; i < 32; i++) {
		EXPECT(o64[i] == std::min(3000000000LL + i, 3000000005LL), "min(long long) of lane %d is %lld", i, o64[i]);
		EXPECT(of[i] == std::max(0.25f * i, 1.5f), "max(float) of lane %d is %g", i, of[i]);
		EXPECT(od[i] == std::min(1e300 * (i + 1), 2.5e300), "min(double) of lane %d is %g", i, od[i]);
		EXPECT(ou[i] == 4000000000u, "max(unsigned) of lane %d is %u", i, ou[i]);
		EXPECT(oz[i] == (size_t)1 << 40, "max(size_t) of lane %d is %zu", i, oz[i]);
	}
}

static void test_widths()
{
	std::vector<int> x16(64), down8(64), up8(64), idx8(64), idx37(64);
	emu::launch(dim3(1), dim3(64), 0, t::widths, x16.data(), down8.data(), up8.data(), idx8.data(), idx37.data());
	for (int i = 0; i < 64; i++) {
		int l = i & 31;
		/* CUDA: a lane reading a later group of width lanes gets its own value */
		EXPECT(x16[i] == (l < 16 ? l : l - 16) * 10, "xor 16 width 16, lane %d: %d", l, x16[i]);
		EXPECT(down8[i] == ((l & 7) + 4 < 8 ? l + 4 : l) * 10, "down 4 width 8, lane %d: %d", l, down8[i]);
		EXPECT(up8[i] == ((l & 7) >= 3 ? l - 3 : l) * 10, "up 3 width 8, lane %d: %d", l, up8[i]);
		EXPECT(idx8[i] == ((l & ~7) + 5) * 10, "idx 5 width 8, lane %d: %d", l, idx8[i]);
		EXPECT(idx37[i] == 50, "idx 37, lane %d: %d", l, idx37[i]);
	}
}

static void test_halves()
{
	std::vector<int> out(32);
	emu::launch(dim3(1), dim3(32), 0, t::halves, out.data());
	for (int l = 0; l < 32; l++)
		EXPECT(out[l] == (l < 16 ? 136 : (l ^ 1) + 1), "lane %d: %d", l, out[l]);
}

static void test_votes()
{
	std::vector<unsigned> ballot(32);
	std::vector<int> any(32), all(32);
	emu::launch(dim3(1), dim3(32), 0, t::votes, ballot.data(), any.data(), all.data());
	for (int l = 0; l < 32; l++) {
		EXPECT(ballot[l] == 0x49249249u, "ballot, lane %d: 0x%08x", l, ballot[l]);
		EXPECT(any[l] == 1, "any, lane %d: %d", l, any[l]);
		EXPECT(all[l] == 1, "all, lane %d: %d", l, all[l]);
	}
}

static void test_exited()
{
	std::vector<float> out(32, -1.0f);
	emu::launch(dim3(1), dim3(32), 0, t::exited, out.data());
	for (int l = 0; l < 20; l++)
		if (l + 16 < 20)
			EXPECT(out[l] == (float)(l + 16), "lane %d read %g", l, out[l]);
		else if (l + 16 < 32)
			EXPECT(std::isnan(out[l]), "lane %d read lane %d, which exited: %g (expected poison)", l, l + 16, out[l]);
		else /* past the warp: its own value */
			EXPECT(out[l] == (float)l, "lane %d read %g", l, out[l]);
}

static void test_dynamic()
{
	std::vector<float> sum(3), first(3 * 128);
	for (int pass = 0; pass < 2; pass++) { /* the second launch sees poison again, not the first's data */
		emu::launch(dim3(3), dim3(128), 128 * sizeof(float), t::dynamic, sum.data(), first.data());
		for (int b = 0; b < 3; b++)
			EXPECT(sum[b] == 127 * 128 / 2, "block %d sum %g", b, sum[b]);
		for (int i = 0; i < 128; i++)
			EXPECT(std::isnan(first[i]), "shared memory before a write, thread %d: %g", i, first[i]);
	}
}

/* Waves of the emulated H100: 132 SMs of 2048 threads and 32 blocks. */
static void test_waves()
{
	struct { unsigned grid, block; unsigned long long waves; } cases[] = {
		{1056, 256, 1}, {1057, 256, 2}, {2112, 128, 1}, {2113, 128, 2}, {264, 1024, 1}, {265, 1024, 2},
		{4224, 32, 1}, {4225, 32, 2}, {8580, 256, 9},
	};
	for (auto &c : cases) {
		emu::launch(dim3(c.grid), dim3(c.block), 0, t::nothing);
		EXPECT(emu::last_launch().waves == c.waves, "%u blocks of %u: %llu waves, expected %llu", c.grid, c.block,
		       emu::last_launch().waves, c.waves);
	}
}

int main(int argc, char **argv)
{
	std::string name = argc > 1 ? argv[1] : "";
	std::vector<int> out(64);
	std::vector<float> fout(256);
	if (name == "minmax")
		test_minmax();
	else if (name == "widths")
		test_widths();
	else if (name == "halves")
		test_halves();
	else if (name == "votes")
		test_votes();
	else if (name == "exited")
		test_exited();
	else if (name == "dynamic")
		test_dynamic();
	else if (name == "waves")
		test_waves();
	else if (name == "not_in_mask")
		emu::launch(dim3(1), dim3(32), 0, t::not_in_mask, out.data());
	else if (name == "reads_outside")
		emu::launch(dim3(1), dim3(32), 0, t::reads_outside, out.data());
	else if (name == "bad_width")
		emu::launch(dim3(1), dim3(32), 0, t::bad_width, out.data());
	else if (name == "mixed")
		emu::launch(dim3(1), dim3(32), 0, t::mixed, out.data());
	else if (name == "deadlock")
		emu::launch(dim3(1), dim3(64), 0, t::deadlock, out.data());
	else if (name == "overflow")
		emu::launch(dim3(1), dim3(128), 128 * sizeof(float), t::overflow, fout.data());
	else {
		fprintf(stderr, "usage: emu-test NAME\n");
		return 2;
	}
	if (!failures)
		printf("ok %s\n", name.c_str());
	return failures ? 1 : 0;
}
