/*
 * emu-golden.h - the runtime of the programs testsuite/lib/emu-golden
 * generates: a kernel and a rewritten variant (a rule's golden output) run
 * on the CPU emulator (bench/emulate.h) on the shapes and types of the
 * kernel's pragma, and compared.
 *
 * A small cousin of the verifier's runtime (passes/harness-rt.cuh), for a
 * machine without a GPU: every buffer of each side has its own copy between
 * two poisoned guard zones; inputs are filled from the pragma's ranges (or
 * the verifier's defaults) and checksummed after the runs; each shape runs
 * three trials: outputs pre-filled with random data, outputs poisoned
 * (except those the original reads: in-place buffers), and every pointer
 * moved one element off its alignment.  An output is compared in full
 * within the pragma's tolerance (or the verifier's default for its type);
 * NaN where the original is finite, a guard written or an input changed
 * fail.  It prints one line per case and a summary; exit 1 on a failure.
 */
#ifndef EMU_GOLDEN_H
#define EMU_GOLDEN_H

#include <cmath>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace emu_golden {

enum { GUARD = 256 };

struct Buf {
	std::string name;
	bool output = false, is_const = false, floating = true;
	size_t n = 0, esize = 0;
	double lo = -1, hi = 1, rtol = 0, atol = 0;
	double (*get)(const unsigned char *, size_t) = nullptr;
	void (*set)(unsigned char *, size_t, double) = nullptr;
	std::vector<unsigned char> mem[2];
	size_t shift = 0;
	unsigned char *ptr(int s) { return mem[s].data() + GUARD + shift; }
	size_t bytes() const { return n * esize; }
};

template <typename T> struct Lane {
	static constexpr bool supported = false;
};
#define EMU_GOLDEN_FLOAT(T, GET, SET, RTOL, ATOL)                                              \
	template <> struct Lane<T> {                                                           \
		static constexpr bool supported = true, floating = true;                       \
		static constexpr double rtol = RTOL, atol = ATOL, lo = -1, hi = 1;            \
		static double get(const unsigned char *p, size_t i)                            \
		{                                                                              \
			T v;                                                                   \
			memcpy(&v, p + i * sizeof(T), sizeof(T));                              \
			return GET;                                                            \
		}                                                                              \
		static void set(unsigned char *p, size_t i, double d)                          \
		{                                                                              \
			T v = SET;                                                             \
			memcpy(p + i * sizeof(T), &v, sizeof(T));                              \
		}                                                                              \
	};
/* the verifier's default tolerances (passes/harness-rt.cuh) */
EMU_GOLDEN_FLOAT(float, (double)v, (float)d, 2e-5, 2e-5)
EMU_GOLDEN_FLOAT(double, v, d, 1e-12, 1e-12)
EMU_GOLDEN_FLOAT(__half, (double)__half2float(v), __float2half_rn((float)d), 5e-3, 5e-3)
EMU_GOLDEN_FLOAT(__nv_bfloat16, (double)__bfloat162float(v), __float2bfloat16_rn((float)d), 2e-2, 2e-2)
#define EMU_GOLDEN_INT(T)                                                                      \
	template <> struct Lane<T> {                                                           \
		static constexpr bool supported = true, floating = false;                      \
		static constexpr double rtol = 0, atol = 0, lo = 0, hi = 15;                  \
		static double get(const unsigned char *p, size_t i)                            \
		{                                                                              \
			T v;                                                                   \
			memcpy(&v, p + i * sizeof(T), sizeof(T));                              \
			return (double)v;                                                      \
		}                                                                              \
		static void set(unsigned char *p, size_t i, double d)                          \
		{                                                                              \
			T v = (T)d;                                                            \
			memcpy(p + i * sizeof(T), &v, sizeof(T));                              \
		}                                                                              \
	};
EMU_GOLDEN_INT(bool)
EMU_GOLDEN_INT(char)
EMU_GOLDEN_INT(signed char)
EMU_GOLDEN_INT(unsigned char)
EMU_GOLDEN_INT(short)
EMU_GOLDEN_INT(unsigned short)
EMU_GOLDEN_INT(int)
EMU_GOLDEN_INT(unsigned)
EMU_GOLDEN_INT(long)
EMU_GOLDEN_INT(unsigned long)
EMU_GOLDEN_INT(long long)
EMU_GOLDEN_INT(unsigned long long)

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* One case: a shape of one instantiation. */
struct Case {
	std::string label;
	std::vector<Buf> bufs;
	bool unsupported = false;
	std::string why;
	/* launch(side, pointers): run the original (0) or the variant (1) */
	std::function<void(int, void *const *)> launch;

	template <typename T> void add(const char *name, long long count, bool output, bool is_const)
	{
		Buf b;
		b.name = name;
		b.output = output;
		b.is_const = is_const;
		b.n = count > 0 ? (size_t)count : 0;
		b.esize = sizeof(T);
		if constexpr (Lane<T>::supported) {
			b.floating = Lane<T>::floating;
			b.lo = Lane<T>::lo;
			b.hi = Lane<T>::hi;
			b.rtol = Lane<T>::rtol;
			b.atol = Lane<T>::atol;
			b.get = Lane<T>::get;
			b.set = Lane<T>::set;
		} else {
			unsupported = true;
			why = "buffer `" + b.name + "`: element type not supported by emu-golden";
		}
		bufs.push_back(b);
	}
	Buf *find(const char *name)
	{
		for (auto &b : bufs)
			if (b.name == name)
				return &b;
		return nullptr;
	}
	void range(const char *name, double lo, double hi)
	{
		if (Buf *b = find(name)) {
			b->lo = std::min(lo, hi);
			b->hi = std::max(lo, hi);
		}
	}
	/* tolerance(nullptr, ...) applies to every output */
	void tolerance(const char *name, double rtol, double atol)
	{
		for (auto &b : bufs)
			if (!name || b.name == name) {
				if (rtol >= 0)
					b.rtol = rtol;
				if (atol >= 0)
					b.atol = atol;
			}
	}
	size_t elements() const
	{
		size_t n = 0;
		for (auto &b : bufs)
			n += b.n;
		return n;
	}
};

struct Run {
	int ok = 0, failed = 0, skipped = 0;
	size_t max_elements = 16u << 20;

	void fill(Buf &b, unsigned char *p, uint64_t seed)
	{
		for (size_t i = 0; i < b.n; i++) {
			double u = (double)(mix(seed + i) >> 11) / 9007199254740992.0;
			double v = b.floating ? b.lo + u * (b.hi - b.lo) : std::floor(b.lo + u * (b.hi - b.lo + 1));
			if (!b.floating && v > b.hi)
				v = b.hi;
			b.set(p, i, v);
		}
	}
	static uint64_t checksum(const unsigned char *p, size_t n)
	{
		uint64_t x = 0xcbf29ce484222325ull;
		for (size_t i = 0; i < n; i++)
			x = (x ^ p[i]) * 0x100000001b3ull;
		return x;
	}

	/* Set up both sides (trial t), run them, compare; "" or what failed. */
	std::string trial(Case &c, int t, bool poison, const std::vector<bool> &read)
	{
		std::vector<uint64_t> sums(c.bufs.size());
		void *ptrs[2][64];
		for (size_t k = 0; k < c.bufs.size(); k++) {
			Buf &b = c.bufs[k];
			b.shift = t == 2 ? b.esize : 0;
			for (int s = 0; s < 2; s++) {
				b.mem[s].assign(GUARD + b.shift + b.bytes() + GUARD, 0xff);
				if (!(b.output && poison && !read[k]))
					fill(b, b.ptr(s), 1000003ull * (k + 1) + 7919ull * t);
				ptrs[s][k] = b.ptr(s);
			}
			sums[k] = checksum(b.ptr(0), b.bytes());
		}
		c.launch(0, ptrs[0]);
		c.launch(1, ptrs[1]);
		std::string msg;
		char line[512];
		for (size_t k = 0; k < c.bufs.size(); k++) {
			Buf &b = c.bufs[k];
			for (int s = 0; s < 2; s++) {
				const char *who = s ? "variant" : "original";
				const unsigned char *m = b.mem[s].data();
				for (size_t i = 0; i < GUARD + b.shift; i++)
					if (m[i] != 0xff) {
						snprintf(line, sizeof line, "%s: the %s wrote before its start; ", b.name.c_str(), who);
						msg += line;
						break;
					}
				for (size_t i = 0; i < GUARD; i++)
					if (m[GUARD + b.shift + b.bytes() + i] != 0xff) {
						snprintf(line, sizeof line, "%s: the %s wrote past its end; ", b.name.c_str(), who);
						msg += line;
						break;
					}
				if (!b.output && checksum(b.ptr(s), b.bytes()) != sums[k]) {
					snprintf(line, sizeof line, "%s: the %s modified this input; ", b.name.c_str(), who);
					msg += line;
				}
			}
			if (!b.output)
				continue;
			double rms = 0;
			for (size_t i = 0; i < b.n; i++) {
				double a = b.get(b.ptr(0), i);
				if (std::isfinite(a))
					rms += a * a;
			}
			rms = b.n ? std::sqrt(rms / (double)b.n) : 0;
			size_t bad = 0, first = 0;
			for (size_t i = 0; i < b.n; i++) {
				double a = b.get(b.ptr(0), i), v = b.get(b.ptr(1), i);
				bool same_bits = !memcmp(b.ptr(0) + i * b.esize, b.ptr(1) + i * b.esize, b.esize);
				bool good = same_bits || (std::isfinite(a) && std::isfinite(v) &&
							  std::fabs(a - v) <= b.atol * rms + b.rtol * std::fabs(a));
				if (!good && !bad++)
					first = i;
			}
			if (bad) {
				snprintf(line, sizeof line, "%s: %zu of %zu elements differ, first at %zu: original %.9g, variant %.9g; ",
					 b.name.c_str(), bad, b.n, first, b.get(b.ptr(0), first), b.get(b.ptr(1), first));
				msg += line;
			}
		}
		return msg;
	}

	void run(Case &c)
	{
		if (c.unsupported) {
			printf("skip  %s: %s\n", c.label.c_str(), c.why.c_str());
			skipped++;
			return;
		}
		if (c.elements() > max_elements) {
			printf("skip  %s: %zu elements, more than %zu\n", c.label.c_str(), c.elements(), max_elements);
			skipped++;
			return;
		}
		if (c.bufs.size() > 64) {
			printf("skip  %s: more than 64 buffers\n", c.label.c_str());
			skipped++;
			return;
		}
		/* Which outputs does the original read?  Run it with two fillings
		 * of each output; if any output moves, that one is read. */
		std::vector<bool> read(c.bufs.size(), false);
		for (size_t k = 0; k < c.bufs.size(); k++) {
			if (!c.bufs[k].output)
				continue;
			std::vector<std::vector<unsigned char>> res[2];
			for (int f = 0; f < 2; f++) {
				void *ptrs[64];
				for (size_t j = 0; j < c.bufs.size(); j++) {
					Buf &b = c.bufs[j];
					b.shift = 0;
					b.mem[0].assign(GUARD + b.bytes() + GUARD, 0xff);
					fill(b, b.ptr(0), 1000003ull * (j + 1) + (j == k ? 104729ull * (f + 1) : 0));
					ptrs[j] = b.ptr(0);
				}
				c.launch(0, ptrs);
				for (auto &b : c.bufs)
					res[f].push_back(b.output ? std::vector<unsigned char>(b.ptr(0), b.ptr(0) + b.bytes())
								  : std::vector<unsigned char>());
			}
			read[k] = res[0] != res[1];
		}
		static const char *const names[] = {"outputs pre-filled", "outputs poisoned", "misaligned"};
		std::string fail;
		for (int t = 0; t < 3 && fail.empty(); t++) {
			std::string m = trial(c, t, t == 1, read);
			if (!m.empty())
				fail = std::string(names[t]) + ": " + m;
		}
		if (fail.empty()) {
			printf("ok    %s\n", c.label.c_str());
			ok++;
		} else {
			fail.resize(fail.size() - 2);
			printf("FAIL  %s: %s\n", c.label.c_str(), fail.c_str());
			failed++;
		}
		fflush(stdout);
	}

	int finish()
	{
		printf("%d cases ok, %d failed, %d skipped\n", ok, failed, skipped);
		return failed ? 1 : 0;
	}
};

} // namespace emu_golden

#endif
