/*
 * bench.cu - the suite's originals against their hand-optimized references.
 *
 * For every kernel of bench/kernels/ and every type its pragma lists, this
 * program runs the original and the reference (bench/reference/) on each
 * shape of the pragma, with 16-byte aligned buffers and, for all but the
 * first (largest) shape, again with every pointer moved by one element, and
 * compares every output element within the pragma's tolerance (or a
 * per-type default).  Outputs are poisoned with NaN before each run, so an
 * element a kernel forgets to write fails.  Each side has its own copy of
 * every buffer, inputs included: the inputs are checksummed after the run
 * (a kernel that writes its input fails), and every buffer sits between
 * two poisoned guard zones that must be intact afterwards (a write out of
 * bounds fails).  With --waves, each kernel also runs its multi-wave
 * shapes (waves_of below): grids larger than the device holds at once and
 * grid-stride loops that go round more than once, which the pragmas' small
 * shapes never reach.  Then it times both versions at
 * the first shape (CUDA events around the kernel alone, L2 flushed before
 * each launch, runs interleaved, median) and prints time, achieved bandwidth
 * and the fraction of the measured device-to-device copy bandwidth.
 *
 * It is separate from astra-cc on purpose: it needs nvcc and a GPU only, so
 * it validates the references (the "correct rewrites" astra-cc's verifier
 * must accept) and the speedups they make possible independently of the
 * tool.  Shapes, buffer sizes, ranges, tolerances, types and launch
 * geometries come from the pragmas through gen-pragmas (pragmas.inc).
 * Build and run it with bench/run-reference.
 *
 * Compiled by a host C++ compiler with -DBENCH_EMULATE (see emulate.h) it
 * runs the same checks on the CPU, without timing: that is how the
 * references are checked on machines without a GPU.
 *
 * Usage: bench [--no-time] [--max-elements N] [--waves] [--max-threads N]
 *              [--json FILE] [--commit ID] [KERNEL...]
 * --max-elements skips the pragma's shapes where an output has more than N
 * elements; --waves adds the multi-wave shapes (not subject to it), and
 * --max-threads skips a multi-wave shape for a pair of launches one of
 * which has more than N threads (the emulator's time budget).
 * Exit status: 0 when every check passed, 1 when one failed, 2 on a CUDA
 * error.
 */
#ifdef BENCH_EMULATE
#include "emulate.h"
#define KLAUNCH(kernel, grid, block, shmem, ...) emu::launch(grid, block, shmem, kernel, __VA_ARGS__)
#else
#include <cuda_runtime.h>
#define KLAUNCH(kernel, grid, block, shmem, ...) kernel<<<grid, block, shmem>>>(__VA_ARGS__)
#endif
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

/* Each original and each reference, in its own namespace (same names). */
namespace orig {
#include "kernels/embedding.cu"
#include "kernels/fused_add_rmsnorm.cu"
#include "kernels/gelu_tanh_and_mul.cu"
#include "kernels/layernorm.cu"
#include "kernels/merge_attn_states.cu"
#include "kernels/per_token_quant_fp8.cu"
#include "kernels/rmsnorm.cu"
#include "kernels/rotary_gptj.cu"
#include "kernels/rotary_neox.cu"
#include "kernels/silu_and_mul.cu"
#include "kernels/softmax.cu"
#include "kernels/topk_gating_softmax.cu"
#include "kernels/transpose.cu"
}
namespace ref {
#include "reference/embedding.cu"
#include "reference/fused_add_rmsnorm.cu"
#include "reference/gelu_tanh_and_mul.cu"
#include "reference/layernorm.cu"
#include "reference/merge_attn_states.cu"
#include "reference/per_token_quant_fp8.cu"
#include "reference/rmsnorm.cu"
#include "reference/rotary_gptj.cu"
#include "reference/rotary_neox.cu"
#include "reference/silu_and_mul.cu"
#include "reference/softmax.cu"
#include "reference/topk_gating_softmax.cu"
#include "reference/transpose.cu"
}

#include "pragmas.inc"

/* ------------------------------------------------------------ utilities */

#define CK(call) check_cuda((call), #call, __FILE__, __LINE__)
static void check_cuda(cudaError_t e, const char *what, const char *file, int line)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, cudaGetErrorString(e));
		exit(2);
	}
}

enum Kind { K_F32, K_F16, K_BF16, K_FP8, K_I32, K_I64 };
template <typename T> struct KindOf;
template <> struct KindOf<float> { static constexpr Kind k = K_F32; };
template <> struct KindOf<__half> { static constexpr Kind k = K_F16; };
template <> struct KindOf<__nv_bfloat16> { static constexpr Kind k = K_BF16; };
template <> struct KindOf<__nv_fp8_e4m3> { static constexpr Kind k = K_FP8; };
template <> struct KindOf<int> { static constexpr Kind k = K_I32; };
template <> struct KindOf<int64_t> { static constexpr Kind k = K_I64; };

static const char *kind_name(Kind k)
{
	static const char *names[] = {"f32", "f16", "bf16", "fp8e4m3", "i32", "i64"};
	return names[k];
}

template <typename T> static const char *type_name() { return kind_name(KindOf<T>::k); }

/* Default relative tolerance per element type; absolute is 1/10 of it
 * times the largest magnitude in the original's output. */
static double default_rtol(Kind k)
{
	switch (k) {
	case K_F32: return 1e-5;
	case K_F16: return 1e-2;
	case K_BF16: return 1.6e-2;
	case K_FP8: return 0.13;
	default: return 0.0;
	}
}

static double to_double(Kind k, const void *p, size_t i)
{
	switch (k) {
	case K_F32: return ((const float *)p)[i];
	case K_F16: return __half2float(((const __half *)p)[i]);
	case K_BF16: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
	case K_FP8: return (float)((const __nv_fp8_e4m3 *)p)[i];
	case K_I32: return ((const int *)p)[i];
	case K_I64: return (double)((const int64_t *)p)[i];
	}
	return NAN;
}

__device__ __forceinline__ uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* Element i of a buffer filled with seed: uniform in [lo, hi]. */
template <typename T>
__device__ inline T fill_value(size_t i, uint64_t seed, double lo, double hi)
{
	uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ull + i);
	if constexpr (KindOf<T>::k == K_I32 || KindOf<T>::k == K_I64)
		return (T)((long long)lo + (long long)(h % (unsigned long long)(hi - lo + 1)));
	else
		return (T)((float)lo + (float)(h >> 40) * (1.0f / 16777216.0f) * (float)(hi - lo));
}

template <typename T> __global__ void fill_kernel(T *p, size_t n, uint64_t seed, double lo, double hi)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = fill_value<T>(i, seed, lo, hi);
}

template <typename T> static void fill(T *p, size_t n, uint64_t seed, double lo, double hi)
{
	if (lo > hi) /* no range(...) given */
		lo = -1, hi = 1;
	if constexpr (KindOf<T>::k != K_FP8) { /* fp8 is only ever an output here */
#ifdef BENCH_EMULATE
		/* Host conversions to 16-bit floats are slow (and tables are big):
		 * copy 4096 random values, rotated by a random amount per 4096
		 * elements.  Real values take one of 65 evenly spaced levels, so
		 * ties are common: a test of the kernels' tie rules. */
		const size_t m = 4096;
		std::vector<T> pool(m);
		for (size_t j = 0; j < m; j++) {
			if constexpr (KindOf<T>::k == K_I32 || KindOf<T>::k == K_I64)
				pool[j] = fill_value<T>(j, seed, lo, hi);
			else
				pool[j] = (T)(float)(lo + (hi - lo) * (double)(mix64(seed + j) % 65) / 64);
		}
		for (size_t i = 0; i < n; i += m) {
			size_t len = std::min(m, n - i), rot = mix64(seed + i) % m;
			size_t a = std::min(len, m - rot);
			memcpy(p + i, &pool[rot], a * sizeof(T));
			memcpy(p + i + a, &pool[0], (len - a) * sizeof(T));
		}
#else
		fill_kernel<<<1024, 256>>>(p, n, seed, lo, hi);
#endif
	}
	CK(cudaGetLastError());
}

/* A shape from the pragma: "rows=2048, cols=12288" (or a multi-wave one). */
struct Shape {
	std::string text;
	std::vector<std::pair<std::string, long long>> values;
	int index;
	bool misaligned;
	bool wave = false;

	Shape(const char *s, int i, bool mis, bool w = false) : text(s), index(i), misaligned(mis), wave(w)
	{
		const char *p = s;
		while (*p) {
			while (*p == ' ' || *p == ',')
				p++;
			const char *eq = strchr(p, '=');
			if (!eq)
				break;
			char *end;
			long long v = strtoll(eq + 1, &end, 0);
			values.emplace_back(std::string(p, eq - p), v);
			p = end;
		}
	}
	int get(const char *name) const
	{
		for (auto &v : values)
			if (v.first == name)
				return (int)v.second;
		fprintf(stderr, "bench: shape \"%s\" has no %s\n", text.c_str(), name);
		exit(2);
	}
};

static struct {
	bool time = true;
	size_t max_elements = (size_t)-1;
	bool waves = false;
	unsigned long long max_threads = ~0ull;
	const char *json = nullptr;
	const char *commit = "unknown";
	std::vector<std::string> only;
} opt;

/*
 * Multi-wave shapes, run with --waves.  The pragmas' shapes that the CPU
 * emulator can afford are small: one wave, and a grid-stride loop (whose
 * grid the rules cap at 8 blocks of 256 per SM, 1056 on an H100) never
 * goes round twice.  These are sized so that on an H100 (132 SMs, 2048
 * threads and 32 blocks each; the emulated device too):
 *   - element-wise kernels: more than 1056 x 256 x 8 = 2,162,688 elements,
 *     so that a capped grid-stride loop taking 8 elements per thread goes
 *     round at least twice, and the original's grid of one element per
 *     thread is about 8 waves; the inner dimensions are multiples of 8 (the
 *     vector paths run) with a tail in the outer one;
 *   - row kernels: more rows than 1056 (grid = rows is 2 waves of 256-thread
 *     blocks, 5 of 1024);
 *   - thread-per-row kernels: also more than 2112 x 128 = 270,336 rows (the
 *     original's grid of 128-thread blocks is 2 waves, and a grid-stride
 *     loop over rows capped at 1056 such blocks goes round at least twice)
 *     with short rows, where --max-threads leaves out the block- and warp-per-row
 *     variants (a block or a warp per row is millions of threads); they get
 *     their waves from the first shape.
 * A shape name=value list like the pragmas'.  They run for the first type
 * of the kernel only (the grid's indexing does not depend on the type; the
 * emulator's time does, and these are its largest shapes).
 */
static const char *const *waves_of(const char *kernel)
{
	static const struct { const char *kernel; const char *shapes[3]; } table[] = {
		{"silu_and_mul", {"tokens=33, d=66560", nullptr}},
		{"gelu_tanh_and_mul", {"tokens=33, d=66560", nullptr}},
		{"merge_attn_states", {"num_tokens=531, num_heads=32, head_size=128", nullptr}},
		{"rotary_neox", {"num_tokens=1057, num_heads=32, num_kv_heads=8, head_size=128", nullptr}},
		{"rotary_gptj", {"num_tokens=1057, num_heads=32, num_kv_heads=8, head_size=128", nullptr}},
		{"transpose", {"rows=1473, cols=1480", nullptr}},
		{"rmsnorm", {"rows=1057, cols=136", "rows=270337, cols=4", nullptr}},
		{"fused_add_rmsnorm", {"rows=1057, cols=136", nullptr}},
		{"layernorm", {"rows=1057, cols=136", nullptr}},
		{"per_token_quant_fp8", {"tokens=1057, hidden=136", nullptr}},
		{"softmax", {"rows=1057, cols=136", "rows=270337, cols=4", nullptr}},
		{"topk_gating_softmax", {"tokens=1057, experts=64, k=4, renormalize=1",
					 "tokens=270337, experts=8, k=2, renormalize=0"}},
		{"embedding", {"tokens=1057, hidden=136", "tokens=270337, hidden=4", nullptr}},
	};
	static const char *const none[] = {nullptr};
	for (auto &e : table)
		if (!strcmp(e.kernel, kernel))
			return e.shapes;
	return none;
}

/* The pragma's shapes (all but the first again misaligned), then with
 * --waves the kernel's multi-wave shapes (for its first type). */
static std::vector<Shape> shapes_of(const char *const *list, const char *kernel)
{
	static std::vector<std::string> waved;
	std::vector<Shape> out;
	for (int i = 0; list[i]; i++) {
		out.emplace_back(list[i], i, false);
		if (i > 0)
			out.emplace_back(list[i], i, true);
	}
	if (opt.waves && std::find(waved.begin(), waved.end(), kernel) == waved.end()) {
		waved.push_back(kernel);
		const char *const *w = waves_of(kernel);
		for (int i = 0; i < 2 && w[i]; i++)
			out.emplace_back(w[i], -1, false, true);
	}
	return out;
}

/* ------------------------------------------------------------ one test */

struct Result {
	std::string kernel, type, shape;
	int checks = 0, failures = 0;
	bool timed = false;
	double bytes = 0, us_orig = 0, us_ref = 0, spread_orig = 0, spread_ref = 0;
};

static int side;                    /* 0: original, 1: reference; read by Arg */
static double copy_gbps;
static void *flush_buf;
static const size_t flush_bytes = (size_t)256 << 20;

enum Role { IN, OUT, INOUT };

/* Poisoned bytes before and after every buffer's data (0xff: NaN, -1). */
static const size_t GUARD = 256;

struct Buffer {
	std::string name;
	Kind kind;
	Role role;
	size_t n, esize, shift;
	double rtol, atol;
	char *mem[2];       /* one copy per side, inputs too */
	uint64_t sum = 0;   /* an input's checksum after filling */
	void *ptr(int s) const { return mem[s] + GUARD + shift; }
	size_t bytes() const { return n * esize; }
	size_t alloc() const { return GUARD + shift + bytes() + GUARD; }
};

/* A 64-bit checksum of a buffer's data, 8 bytes at a time (the input
 * checksum: any change of the bytes changes it, barring a 2^-64 chance). */
static uint64_t checksum(const void *dev, size_t n)
{
#ifdef BENCH_EMULATE
	const unsigned char *p = (const unsigned char *)dev; /* host memory here */
#else
	std::vector<unsigned char> h(n);
	if (n)
		CK(cudaMemcpy(h.data(), dev, n, cudaMemcpyDeviceToHost));
	const unsigned char *p = h.data();
#endif
	/* four independent lanes, so that the multiplies overlap */
	uint64_t v[4] = {0x9e3779b97f4a7c15ull ^ n, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull, 0x27d4eb2f165667c5ull};
	uint64_t w[4];
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		memcpy(w, p + i, 32);
		for (int k = 0; k < 4; k++) {
			v[k] = (v[k] ^ w[k]) * 0xff51afd7ed558ccdull;
			v[k] = v[k] << 31 | v[k] >> 33;
		}
	}
	uint64_t x = v[0] ^ (v[1] * 3) ^ (v[2] * 5) ^ (v[3] * 7);
	for (; i < n; i++)
		x = (x ^ p[i]) * 0x100000001b3ull;
	return x;
}

/* Launch geometry, for the waves a launch needs. */
struct Geo {
	dim3 grid, block;
	unsigned long long blocks() const { return (unsigned long long)grid.x * grid.y * grid.z; }
	unsigned long long threads() const { return blocks() * block.x * block.y * block.z; }
};
static int dev_sms = 1, dev_threads_per_sm = 2048, dev_blocks_per_sm = 32;
/* How many rounds of resident blocks a grid needs (thread and block limits
 * only: registers and shared memory can only make it more). */
static unsigned long long waves(const Geo &g)
{
	unsigned long long warps = ((unsigned long long)g.block.x * g.block.y * g.block.z + 31) / 32;
	unsigned long long per_sm = std::min<unsigned long long>(dev_blocks_per_sm, dev_threads_per_sm / 32 / warps);
	unsigned long long resident = std::max(1ull, per_sm * dev_sms);
	return (g.blocks() + resident - 1) / resident;
}

struct Test;
/* A buffer argument: converts to the current side's pointer at launch. */
template <typename T> struct Arg {
	Test *t;
	int i;
	operator T *() const;
};

struct Test {
	Result &res;
	const Shape &shape;
	std::vector<Buffer> bufs;
	double bytes = 0; /* bytes a launch moves; 0: from the buffers */
	bool skipped = false; /* an output is larger than --max-elements */

	Test(Result &r, const Shape &s) : res(r), shape(s) {}
	~Test()
	{
		for (auto &b : bufs)
			for (int s = 0; s < 2; s++)
				cudaFree(b.mem[s]);
	}

	template <typename T>
	Arg<T> add(Role role, const char *name, size_t n, double lo, double hi, double rtol, double atol)
	{
		if (role != IN && n > opt.max_elements && !shape.wave)
			skipped = true;
		if (skipped)
			return Arg<T>{this, -1};
		Buffer b;
		b.name = name;
		b.kind = KindOf<T>::k;
		b.role = role;
		b.n = n;
		b.esize = sizeof(T);
		b.shift = shape.misaligned ? sizeof(T) : 0;
		b.rtol = rtol;
		b.atol = atol;
		b.mem[0] = b.mem[1] = nullptr;
		for (int s = 0; s < 2; s++) {
			CK(cudaMalloc(&b.mem[s], b.alloc()));
			/* the guards (the data is filled, or poisoned before each run) */
			CK(cudaMemset(b.mem[s], 0xff, GUARD + b.shift));
			CK(cudaMemset((char *)b.ptr(s) + b.bytes(), 0xff, GUARD));
			if (role != OUT)
				fill((T *)b.ptr(s), n, 1000 * bufs.size() + 7, lo, hi);
		}
		if (role == IN)
			b.sum = checksum(b.ptr(0), b.bytes());
		bufs.push_back(b);
		return Arg<T>{this, (int)bufs.size() - 1};
	}

	/* Side s left b's guards poisoned and (for an input) its data as it
	 * was; say what it did otherwise in *msg. */
	bool intact(const Buffer &b, int s, std::string *msg)
	{
		const char *who = s ? "reference" : "original";
		std::vector<unsigned char> head(GUARD + b.shift), tail(GUARD);
		CK(cudaMemcpy(head.data(), b.mem[s], head.size(), cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(tail.data(), (char *)b.ptr(s) + b.bytes(), GUARD, cudaMemcpyDeviceToHost));
		char line[512];
		bool ok = true;
		size_t before = 0, after = 0;
		for (size_t i = 0; i < head.size(); i++)
			if (head[i] != 0xff && !before)
				before = head.size() - i;
		for (size_t i = GUARD; i-- > 0;)
			if (tail[i] != 0xff && !after)
				after = i + 1;
		if (before) {
			snprintf(line, sizeof line, "    %s: the %s wrote out of bounds, up to %zu bytes before its start\n",
				 b.name.c_str(), who, before);
			*msg += line;
			ok = false;
		}
		if (after) {
			snprintf(line, sizeof line, "    %s: the %s wrote out of bounds, up to %zu bytes after its end\n",
				 b.name.c_str(), who, after);
			*msg += line;
			ok = false;
		}
		if (b.role == IN && checksum(b.ptr(s), b.bytes()) != b.sum) {
			snprintf(line, sizeof line, "    %s: the %s modified this input (its checksum changed)\n",
				 b.name.c_str(), who);
			*msg += line;
			ok = false;
		}
		return ok;
	}

	/* Compare both sides of b; say how in *msg. */
	bool compare(const Buffer &b, std::string *msg)
	{
		size_t nb = b.bytes();
		std::vector<char> h0(nb), h1(nb);
		CK(cudaMemcpy(h0.data(), b.ptr(0), nb, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(h1.data(), b.ptr(1), nb, cudaMemcpyDeviceToHost));
		double maxmag = 0;
		for (size_t i = 0; i < b.n; i++) {
			double a = fabs(to_double(b.kind, h0.data(), i));
			if (a > maxmag && !isinf(a))
				maxmag = a;
		}
		double rtol = b.rtol >= 0 ? b.rtol : default_rtol(b.kind);
		double atol = b.atol >= 0 ? b.atol : 0.1 * default_rtol(b.kind) * maxmag;
		size_t bad = 0, first = 0;
		double maxd = 0;
		for (size_t i = 0; i < b.n; i++) {
			double a = to_double(b.kind, h0.data(), i), r = to_double(b.kind, h1.data(), i);
			bool ok;
			if (isnan(a) || isnan(r))
				ok = false;
			else if (isinf(a) || isinf(r))
				ok = a == r;
			else {
				double d = fabs(a - r);
				maxd = std::max(maxd, d);
				ok = d <= atol + rtol * fabs(a);
			}
			if (!ok && bad++ == 0)
				first = i;
		}
		char line[512];
		if (bad)
			snprintf(line, sizeof line, "    %s: %zu of %zu elements differ (rtol %g, atol %.3g); "
				 "first at %zu: original %.9g, reference %.9g\n",
				 b.name.c_str(), bad, b.n, rtol, atol, first,
				 to_double(b.kind, h0.data(), first), to_double(b.kind, h1.data(), first));
		else
			snprintf(line, sizeof line, "    %s: max |diff| %.3g (rtol %g, atol %.3g)\n",
				 b.name.c_str(), maxd, rtol, atol);
		*msg += line;
		return bad == 0;
	}

	void launch(const std::function<void()> &f, int s)
	{
		side = s;
		f();
		cudaError_t e = cudaGetLastError();
		if (e == cudaSuccess)
			e = cudaDeviceSynchronize();
		if (e != cudaSuccess) {
			printf("FAIL  %s<%s> %s%s: the %s failed: %s\n", res.kernel.c_str(), res.type.c_str(),
			       shape.text.c_str(), shape.misaligned ? " misaligned" : "",
			       s ? "reference" : "original", cudaGetErrorString(e));
			exit(2);
		}
	}

	void run(const std::function<void()> &orig_launch, const std::function<void()> &ref_launch,
		 const Geo &og, const Geo &rg)
	{
		const char *tag = shape.misaligned ? " (misaligned)" : shape.wave ? " (multi-wave)" : "";
		if (skipped) {
			printf("skip  %s<%s> %s%s: an output has more than %zu elements\n", res.kernel.c_str(),
			       res.type.c_str(), shape.text.c_str(), tag, opt.max_elements);
			return;
		}
		if (shape.wave && std::max(og.threads(), rg.threads()) > opt.max_threads) {
			printf("skip  %s<%s> %s%s: the %s launches %llu threads, more than --max-threads %llu\n",
			       res.kernel.c_str(), res.type.c_str(), shape.text.c_str(), tag,
			       og.threads() > opt.max_threads ? "original" : "reference",
			       std::max(og.threads(), rg.threads()), opt.max_threads);
			return;
		}
		for (auto &b : bufs)
			if (b.role == OUT)
				for (int s = 0; s < 2; s++)
					CK(cudaMemset(b.ptr(s), 0xff, b.bytes())); /* NaN (and -1) */
		launch(orig_launch, 0);
		launch(ref_launch, 1);
		bool ok = true;
		std::string msg;
		for (auto &b : bufs)
			if (b.role != IN)
				ok = compare(b, &msg) && ok;
		for (auto &b : bufs)
			for (int s = 0; s < 2; s++)
				ok = intact(b, s, &msg) && ok;
		if (shape.wave) {
			size_t outs = 0;
			for (auto &b : bufs)
				if (b.role != IN)
					outs = std::max(outs, b.n);
			char line[256];
			snprintf(line, sizeof line, "    waves: original %llu (%llu blocks of %u), reference %llu "
				 "(%llu blocks of %u, %.1f outputs per thread)\n", waves(og), og.blocks(),
				 og.block.x * og.block.y * og.block.z, waves(rg), rg.blocks(),
				 rg.block.x * rg.block.y * rg.block.z, (double)outs / (double)rg.threads());
			msg += line;
		}
		printf("%-4s  %s<%s> %s%s\n%s", ok ? "ok" : "FAIL", res.kernel.c_str(), res.type.c_str(),
		       shape.text.c_str(), tag, msg.c_str());
		fflush(stdout);
		res.checks++;
		res.failures += !ok;
		if (shape.index == 0 && !shape.misaligned) {
			res.shape = shape.text;
			if (opt.time)
				time_both(orig_launch, ref_launch);
		}
	}

	static void median(std::vector<float> &v, double &med, double &spread)
	{
		std::sort(v.begin(), v.end());
		med = v[v.size() / 2];
		/* half the width of the middle half, relative to the median */
		spread = (v[v.size() * 3 / 4] - v[v.size() / 4]) / 2 / med;
	}

	void time_both(const std::function<void()> &o, const std::function<void()> &r)
	{
		cudaEvent_t ev[4];
		for (auto &e : ev)
			CK(cudaEventCreate(&e));
		auto once = [&](const std::function<void()> &f, int s, cudaEvent_t a, cudaEvent_t b) {
			CK(cudaMemsetAsync(flush_buf, 0, flush_bytes)); /* evict L2 */
			side = s;
			CK(cudaEventRecord(a));
			f();
			CK(cudaEventRecord(b));
		};
		float t0, t1;
		once(o, 0, ev[0], ev[1]);
		once(r, 1, ev[2], ev[3]);
		CK(cudaDeviceSynchronize());
		CK(cudaEventElapsedTime(&t0, ev[0], ev[1]));
		CK(cudaEventElapsedTime(&t1, ev[2], ev[3]));
		int reps = (int)std::min(50.0, std::max(7.0, 300.0 / (t0 + t1 + 0.3)));
		std::vector<float> to, tr;
		for (int i = 0; i < reps; i++) {
			once(o, 0, ev[0], ev[1]);
			once(r, 1, ev[2], ev[3]);
			CK(cudaEventSynchronize(ev[3]));
			CK(cudaEventElapsedTime(&t0, ev[0], ev[1]));
			CK(cudaEventElapsedTime(&t1, ev[2], ev[3]));
			to.push_back(t0 * 1000);
			tr.push_back(t1 * 1000);
		}
		CK(cudaGetLastError());
		for (auto &e : ev)
			CK(cudaEventDestroy(e));
		median(to, res.us_orig, res.spread_orig);
		median(tr, res.us_ref, res.spread_ref);
		double moved = bytes;
		if (moved == 0)
			for (auto &b : bufs)
				moved += (b.role == INOUT ? 2.0 : 1.0) * b.bytes();
		res.bytes = moved;
		res.timed = true;
	}
};

template <typename T> Arg<T>::operator T *() const
{
	return (T *)t->bufs[i].ptr(side);
}

/* ------------------------------------------------------------ the cases */

/* buffer NAME of kernel K as the arguments of Test::add */
#define BUF(K, NAME) #NAME, COUNT_##K##_##NAME, RANGE_##K##_##NAME, TOL_##K##_##NAME
/* run the original and the reference with the pragmas' launch geometries */
#define RUN(K, TARGS, ...)                                                                   \
	t.run([&] { KLAUNCH(orig::K TARGS, ORIG_GRID_##K, ORIG_BLOCK_##K, ORIG_SHMEM_##K, __VA_ARGS__); }, \
	      [&] { KLAUNCH(ref::K TARGS, REF_GRID_##K, REF_BLOCK_##K, REF_SHMEM_##K, __VA_ARGS__); },   \
	      Geo{dim3(ORIG_GRID_##K), dim3(ORIG_BLOCK_##K)}, Geo{dim3(REF_GRID_##K), dim3(REF_BLOCK_##K)})

template <typename T> static void case_silu_and_mul(Result &res)
{
	for (auto &s : shapes_of(SHAPES_silu_and_mul, "silu_and_mul")) {
		Test t(res, s);
		int tokens = s.get("tokens"), d = s.get("d");
		auto out = t.add<T>(OUT, BUF(silu_and_mul, out));
		auto input = t.add<T>(IN, BUF(silu_and_mul, input));
		RUN(silu_and_mul, <T>, out, input, tokens, d);
	}
}

template <typename T> static void case_gelu_tanh_and_mul(Result &res)
{
	for (auto &s : shapes_of(SHAPES_gelu_tanh_and_mul, "gelu_tanh_and_mul")) {
		Test t(res, s);
		int tokens = s.get("tokens"), d = s.get("d");
		auto out = t.add<T>(OUT, BUF(gelu_tanh_and_mul, out));
		auto input = t.add<T>(IN, BUF(gelu_tanh_and_mul, input));
		RUN(gelu_tanh_and_mul, <T>, out, input, tokens, d);
	}
}

template <typename T> static void case_rmsnorm(Result &res)
{
	for (auto &s : shapes_of(SHAPES_rmsnorm, "rmsnorm")) {
		Test t(res, s);
		int rows = s.get("rows"), cols = s.get("cols");
		float eps = SCALAR_rmsnorm_eps;
		auto out = t.add<T>(OUT, BUF(rmsnorm, out));
		auto x = t.add<T>(IN, BUF(rmsnorm, x));
		auto w = t.add<T>(IN, BUF(rmsnorm, w));
		RUN(rmsnorm, <T>, out, x, w, eps, rows, cols);
	}
}

template <typename T> static void case_fused_add_rmsnorm(Result &res)
{
	for (auto &s : shapes_of(SHAPES_fused_add_rmsnorm, "fused_add_rmsnorm")) {
		Test t(res, s);
		int rows = s.get("rows"), cols = s.get("cols");
		float eps = SCALAR_fused_add_rmsnorm_eps;
		auto out = t.add<T>(OUT, BUF(fused_add_rmsnorm, out));
		auto residual = t.add<T>(INOUT, BUF(fused_add_rmsnorm, residual));
		auto x = t.add<T>(IN, BUF(fused_add_rmsnorm, x));
		auto w = t.add<T>(IN, BUF(fused_add_rmsnorm, w));
		RUN(fused_add_rmsnorm, <T>, out, residual, x, w, eps, rows, cols);
	}
}

template <typename T> static void case_merge_attn_states(Result &res)
{
	for (auto &s : shapes_of(SHAPES_merge_attn_states, "merge_attn_states")) {
		Test t(res, s);
		int num_tokens = s.get("num_tokens"), num_heads = s.get("num_heads");
		int head_size = s.get("head_size");
		auto output = t.add<T>(OUT, BUF(merge_attn_states, output));
		auto output_lse = t.add<float>(OUT, BUF(merge_attn_states, output_lse));
		auto prefix_output = t.add<T>(IN, BUF(merge_attn_states, prefix_output));
		auto prefix_lse = t.add<float>(IN, BUF(merge_attn_states, prefix_lse));
		auto suffix_output = t.add<T>(IN, BUF(merge_attn_states, suffix_output));
		auto suffix_lse = t.add<float>(IN, BUF(merge_attn_states, suffix_lse));
		RUN(merge_attn_states, <T>, output, output_lse, prefix_output, prefix_lse,
		    suffix_output, suffix_lse, num_tokens, num_heads, head_size);
	}
}

template <typename T> static void case_rotary_neox(Result &res)
{
	for (auto &s : shapes_of(SHAPES_rotary_neox, "rotary_neox")) {
		Test t(res, s);
		int num_tokens = s.get("num_tokens"), num_heads = s.get("num_heads");
		int num_kv_heads = s.get("num_kv_heads"), head_size = s.get("head_size");
		auto positions = t.add<int64_t>(IN, BUF(rotary_neox, positions));
		auto query = t.add<T>(INOUT, BUF(rotary_neox, query));
		auto key = t.add<T>(INOUT, BUF(rotary_neox, key));
		auto cos_sin_cache = t.add<T>(IN, BUF(rotary_neox, cos_sin_cache));
		t.bytes = 2.0 * sizeof(T) * (COUNT_rotary_neox_query + COUNT_rotary_neox_key) +
			  8.0 * num_tokens + sizeof(T) * (double)num_tokens * head_size;
		RUN(rotary_neox, <T>, positions, query, key, cos_sin_cache, num_tokens, num_heads,
		    num_kv_heads, head_size);
	}
}

template <typename T> static void case_rotary_gptj(Result &res)
{
	for (auto &s : shapes_of(SHAPES_rotary_gptj, "rotary_gptj")) {
		Test t(res, s);
		int num_tokens = s.get("num_tokens"), num_heads = s.get("num_heads");
		int num_kv_heads = s.get("num_kv_heads"), head_size = s.get("head_size");
		auto positions = t.add<int64_t>(IN, BUF(rotary_gptj, positions));
		auto query = t.add<T>(INOUT, BUF(rotary_gptj, query));
		auto key = t.add<T>(INOUT, BUF(rotary_gptj, key));
		auto cos_sin_cache = t.add<T>(IN, BUF(rotary_gptj, cos_sin_cache));
		t.bytes = 2.0 * sizeof(T) * (COUNT_rotary_gptj_query + COUNT_rotary_gptj_key) +
			  8.0 * num_tokens + sizeof(T) * (double)num_tokens * head_size;
		RUN(rotary_gptj, <T>, positions, query, key, cos_sin_cache, num_tokens, num_heads,
		    num_kv_heads, head_size);
	}
}

template <typename T> static void case_softmax(Result &res)
{
	for (auto &s : shapes_of(SHAPES_softmax, "softmax")) {
		Test t(res, s);
		int rows = s.get("rows"), cols = s.get("cols");
		auto out = t.add<float>(OUT, BUF(softmax, out));
		auto x = t.add<float>(IN, BUF(softmax, x));
		RUN(softmax, , out, x, rows, cols);
	}
}

template <typename T> static void case_layernorm(Result &res)
{
	for (auto &s : shapes_of(SHAPES_layernorm, "layernorm")) {
		Test t(res, s);
		int rows = s.get("rows"), cols = s.get("cols");
		float eps = SCALAR_layernorm_eps;
		auto out = t.add<T>(OUT, BUF(layernorm, out));
		auto x = t.add<T>(IN, BUF(layernorm, x));
		auto w = t.add<T>(IN, BUF(layernorm, w));
		auto b = t.add<T>(IN, BUF(layernorm, b));
		RUN(layernorm, <T>, out, x, w, b, eps, rows, cols);
	}
}

template <typename T> static void case_per_token_quant_fp8(Result &res)
{
	for (auto &s : shapes_of(SHAPES_per_token_quant_fp8, "per_token_quant_fp8")) {
		Test t(res, s);
		int tokens = s.get("tokens"), hidden = s.get("hidden");
		auto out = t.add<__nv_fp8_e4m3>(OUT, BUF(per_token_quant_fp8, out));
		auto scales = t.add<float>(OUT, BUF(per_token_quant_fp8, scales));
		auto input = t.add<T>(IN, BUF(per_token_quant_fp8, input));
		RUN(per_token_quant_fp8, <T>, out, scales, input, tokens, hidden);
	}
}

template <typename T> static void case_topk_gating_softmax(Result &res)
{
	for (auto &s : shapes_of(SHAPES_topk_gating_softmax, "topk_gating_softmax")) {
		Test t(res, s);
		int tokens = s.get("tokens"), experts = s.get("experts"), k = s.get("k");
		int renormalize = s.get("renormalize");
		auto topk_weights = t.add<float>(OUT, BUF(topk_gating_softmax, topk_weights));
		auto topk_indices = t.add<int>(OUT, BUF(topk_gating_softmax, topk_indices));
		auto gating_output = t.add<float>(IN, BUF(topk_gating_softmax, gating_output));
		RUN(topk_gating_softmax, , topk_weights, topk_indices, gating_output, tokens, experts,
		    k, renormalize);
	}
}

template <typename T> static void case_embedding(Result &res)
{
	for (auto &s : shapes_of(SHAPES_embedding, "embedding")) {
		Test t(res, s);
		int tokens = s.get("tokens"), hidden = s.get("hidden"), vocab = SCALAR_embedding_vocab;
		auto out = t.add<T>(OUT, BUF(embedding, out));
		auto ids = t.add<int>(IN, BUF(embedding, ids));
		auto table = t.add<T>(IN, BUF(embedding, table));
		/* only the looked-up rows of the table are read */
		t.bytes = 2.0 * sizeof(T) * tokens * hidden + 4.0 * tokens;
		RUN(embedding, <T>, out, ids, table, tokens, hidden, vocab);
	}
}

template <typename T> static void case_transpose(Result &res)
{
	for (auto &s : shapes_of(SHAPES_transpose, "transpose")) {
		Test t(res, s);
		int rows = s.get("rows"), cols = s.get("cols");
		auto out = t.add<T>(OUT, BUF(transpose, out));
		auto in = t.add<T>(IN, BUF(transpose, in));
		RUN(transpose, <T>, out, in, rows, cols);
	}
}

struct Case {
	const char *kernel;
	const char *type;
	void (*fn)(Result &);
};

#define CASE(K, T) {#K, type_name<T>(), case_##K<T>},
static const std::vector<Case> &all_cases()
{
	static const std::vector<Case> cases = {
		FOR_TYPES_silu_and_mul(CASE)
		FOR_TYPES_gelu_tanh_and_mul(CASE)
		FOR_TYPES_rmsnorm(CASE)
		FOR_TYPES_fused_add_rmsnorm(CASE)
		FOR_TYPES_merge_attn_states(CASE)
		FOR_TYPES_rotary_neox(CASE)
		FOR_TYPES_rotary_gptj(CASE)
		FOR_TYPES_softmax(CASE)
		FOR_TYPES_layernorm(CASE)
		FOR_TYPES_per_token_quant_fp8(CASE)
		FOR_TYPES_topk_gating_softmax(CASE)
		FOR_TYPES_embedding(CASE)
		FOR_TYPES_transpose(CASE)
	};
	return cases;
}

/* ------------------------------------------------------------ main */

static double measure_copy_gbps()
{
	void *src;
	CK(cudaMalloc(&src, flush_bytes));
	CK(cudaMemset(src, 1, flush_bytes));
	cudaEvent_t a, b;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	std::vector<float> t;
	for (int i = 0; i < 12; i++) {
		CK(cudaEventRecord(a));
		CK(cudaMemcpyAsync(flush_buf, src, flush_bytes, cudaMemcpyDeviceToDevice));
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		float ms;
		CK(cudaEventElapsedTime(&ms, a, b));
		if (i >= 2)
			t.push_back(ms);
	}
	std::sort(t.begin(), t.end());
	CK(cudaFree(src));
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	return 2.0 * flush_bytes / (t[t.size() / 2] * 1e-3) / 1e9;
}

static bool selected(const char *kernel)
{
	if (opt.only.empty())
		return true;
	for (auto &k : opt.only)
		if (k == kernel)
			return true;
	return false;
}

static void write_json(const std::vector<Result> &results, const cudaDeviceProp &prop,
		       int driver, int runtime)
{
	FILE *f = fopen(opt.json, "w");
	if (!f) {
		perror(opt.json);
		exit(2);
	}
	fprintf(f, "{\n  \"what\": \"bench/bench.cu: suite originals vs hand-optimized references\",\n");
	fprintf(f, "  \"commit\": \"%s\",\n  \"device\": \"%s\",\n  \"cc\": \"%d.%d\",\n", opt.commit,
		prop.name, prop.major, prop.minor);
#ifdef __CUDACC_VER_MAJOR__
	int nvcc = __CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10;
#else
	int nvcc = 0;
#endif
	fprintf(f, "  \"driver\": %d,\n  \"runtime\": %d,\n  \"nvcc\": %d,\n", driver, runtime, nvcc);
	fprintf(f, "  \"copy_gbps\": %.1f,\n  \"results\": [\n", copy_gbps);
	for (size_t i = 0; i < results.size(); i++) {
		const Result &r = results[i];
		fprintf(f, "    {\"kernel\": \"%s\", \"type\": \"%s\", \"shape\": \"%s\", "
			"\"checks\": %d, \"failures\": %d",
			r.kernel.c_str(), r.type.c_str(), r.shape.c_str(), r.checks, r.failures);
		if (r.timed)
			fprintf(f, ", \"bytes\": %.0f, \"us_original\": %.2f, \"us_reference\": %.2f, "
				"\"spread_original\": %.4f, \"spread_reference\": %.4f, \"speedup\": %.3f",
				r.bytes, r.us_orig, r.us_ref, r.spread_orig, r.spread_ref, r.us_orig / r.us_ref);
		fprintf(f, "}%s\n", i + 1 < results.size() ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	fclose(f);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-time"))
			opt.time = false;
		else if (!strcmp(argv[i], "--max-elements") && i + 1 < argc)
			opt.max_elements = strtoull(argv[++i], nullptr, 0);
		else if (!strcmp(argv[i], "--waves"))
			opt.waves = true;
		else if (!strcmp(argv[i], "--max-threads") && i + 1 < argc)
			opt.max_threads = strtoull(argv[++i], nullptr, 0);
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			opt.json = argv[++i];
		else if (!strcmp(argv[i], "--commit") && i + 1 < argc)
			opt.commit = argv[++i];
		else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: bench [--no-time] [--max-elements N] [--waves] [--max-threads N] "
				"[--json FILE] [--commit ID] [KERNEL...]\n");
			return 2;
		} else
			opt.only.push_back(argv[i]);
	}

#ifdef BENCH_EMULATE
	opt.time = false;
#endif
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		fprintf(stderr, "bench: no CUDA device\n");
		return 77;
	}
	cudaDeviceProp prop;
	int driver = 0, runtime = 0;
	CK(cudaGetDeviceProperties(&prop, 0));
	CK(cudaDriverGetVersion(&driver));
	CK(cudaRuntimeGetVersion(&runtime));
	if (prop.multiProcessorCount > 0) {
		dev_sms = prop.multiProcessorCount;
		if (prop.maxThreadsPerMultiProcessor > 0)
			dev_threads_per_sm = prop.maxThreadsPerMultiProcessor;
		if (prop.maxBlocksPerMultiProcessor > 0)
			dev_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
	}
	if (opt.time) {
		CK(cudaMalloc(&flush_buf, flush_bytes));
		copy_gbps = measure_copy_gbps();
	}
	printf("device: %s (sm_%d%d), driver %d, runtime %d; device-to-device copy %.0f GB/s\n",
	       prop.name, prop.major, prop.minor, driver, runtime, copy_gbps);

	std::vector<Result> results;
	int failures = 0;
	for (auto &c : all_cases()) {
		if (!selected(c.kernel))
			continue;
		Result r;
		r.kernel = c.kernel;
		r.type = c.type;
		c.fn(r);
		failures += r.failures;
		results.push_back(r);
	}

	printf("\n| kernel | type | shape | checks | original us | reference us | speedup | "
	       "original GB/s | reference GB/s | reference / copy |\n");
	printf("|---|---|---|---|---:|---:|---:|---:|---:|---:|\n");
	double logsum = 0;
	int ntimed = 0;
	for (auto &r : results) {
		printf("| %s | %s | %s | %d/%d |", r.kernel.c_str(), r.type.c_str(), r.shape.c_str(),
		       r.checks - r.failures, r.checks);
		if (r.timed) {
			double go = r.bytes / (r.us_orig * 1e-6) / 1e9, gr = r.bytes / (r.us_ref * 1e-6) / 1e9;
			printf(" %.1f | %.1f | %.2fx | %.0f | %.0f | %.0f%% |\n", r.us_orig, r.us_ref,
			       r.us_orig / r.us_ref, go, gr, 100 * gr / copy_gbps);
			logsum += log(r.us_orig / r.us_ref);
			ntimed++;
		} else {
			printf(" | | | | | |\n");
		}
	}
	if (ntimed)
		printf("\ngeometric-mean speedup of the references: %.2fx over %d kernel/type pairs\n",
		       exp(logsum / ntimed), ntimed);
	printf("%d checks failed\n", failures);
	if (opt.json)
		write_json(results, prop, driver, runtime);
	if (flush_buf)
		CK(cudaFree(flush_buf));
	return failures ? 1 : 0;
}
