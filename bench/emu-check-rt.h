/*
 * emu-check-rt.h - the fixed part of the programs bench/emu-check writes:
 * buffers, test data, and the comparison of a variant with the original,
 * for kernels run on the CPU by emulate.h.
 *
 * A Case is one shape of one instantiation (aligned, or with every buffer
 * one element past its aligned start).  reference() runs the original
 * for each trial and keeps its results; variant() runs a variant on the
 * same inputs and compares.  The protocol is the verifier's
 * (doc/verify.md) scaled to a CPU: a probe finds the outputs the kernel
 * reads (in-place buffers); trial 0 pre-fills every output with random
 * data, trial 1 poisons the outputs that are not read (0xFF bytes: NaN);
 * inputs must come out unchanged; 4 KiB red zones around every buffer
 * must stay untouched; every output element is compared with the
 * pragma's tolerance or the verifier's per-type default.  Every variant
 * runs in a child process, so a crash is that variant's failure; when the
 * original itself faults on misaligned buffers (as it would on a GPU:
 * 16-byte vector accesses), the misaligned case is skipped for everyone,
 * as the verifier drops that trial.
 */
#ifndef EMU_CHECK_RT_H
#define EMU_CHECK_RT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace astra_emu {

enum Kind { K_F32, K_F64, K_F16, K_BF16, K_E4M3, K_E5M2, K_INT, K_BOOL, K_OPAQUE };

template <typename T> constexpr Kind kind_of()
{
	if (std::is_same<T, float>::value)
		return K_F32;
	if (std::is_same<T, double>::value)
		return K_F64;
	if (std::is_same<T, __half>::value)
		return K_F16;
	if (std::is_same<T, __nv_bfloat16>::value)
		return K_BF16;
	if (std::is_same<T, __nv_fp8_e4m3>::value)
		return K_E4M3;
	if (std::is_same<T, __nv_fp8_e5m2>::value)
		return K_E5M2;
	if (std::is_same<T, bool>::value)
		return K_BOOL;
	if (std::is_integral<T>::value || std::is_enum<T>::value)
		return K_INT;
	return K_OPAQUE;
}

/* The verifier's default tolerance per type (rtol = atol); 0: exact. */
static double default_tol(Kind k, bool atol)
{
	switch (k) {
	case K_F32: return 2e-5;
	case K_F64: return 1e-12;
	case K_F16: return 5e-3;
	case K_BF16: return 2e-2;
	case K_E4M3: return atol ? 0.02 : 0.13;
	case K_E5M2: return atol ? 0.04 : 0.26;
	default: return 0;
	}
}

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* Element i of a buffer as a double (non-finite kept); integers exact up to 2^53. */
template <typename T> static double as_double(const void *p, size_t i)
{
	const T *q = (const T *)p + i;
	if constexpr (kind_of<T>() == K_F16)
		return __half2float(*q);
	else if constexpr (kind_of<T>() == K_BF16)
		return __bfloat162float(*q);
	else if constexpr (kind_of<T>() == K_E4M3 || kind_of<T>() == K_E5M2)
		return (double)(float)*q;
	else if constexpr (kind_of<T>() == K_OPAQUE)
		return 0;
	else
		return (double)*q;
}

template <typename T> static T from_double(double v)
{
	if constexpr (kind_of<T>() == K_F16)
		return __float2half((float)v);
	else if constexpr (kind_of<T>() == K_BF16)
		return __float2bfloat16((float)v);
	else if constexpr (kind_of<T>() == K_E4M3 || kind_of<T>() == K_E5M2)
		return T((float)v);
	else if constexpr (kind_of<T>() == K_OPAQUE)
		return T();
	else
		return (T)v;
}

static const size_t RED = 4096; /* red zone before and after each buffer */

struct Buffer {
	std::string name;
	Kind kind;
	size_t esize, n;
	bool output, read = false; /* read: an output the kernel reads (probe) */
	double lo, hi, rtol, atol;
	std::vector<unsigned char> mem;              /* red zone, data, red zone */
	std::vector<std::vector<unsigned char>> init; /* per trial: the data before a run */
	std::vector<std::vector<unsigned char>> ref;  /* per trial: the reference's outputs */
	void (*fill)(void *, size_t, uint64_t, double, double);
	double (*get)(const void *, size_t);
	size_t shift;
	unsigned char *data() { return mem.data() + RED + shift; }
	size_t bytes() const { return n * esize; }
};

template <typename T> static void fill_values(void *dst, size_t n, uint64_t seed, double lo, double hi)
{
	T *p = (T *)dst;
	constexpr Kind k = kind_of<T>();
	if (k == K_OPAQUE) {
		unsigned char *b = (unsigned char *)dst;
		for (size_t i = 0; i < n * sizeof(T); i++)
			b[i] = (unsigned char)mix64(seed + i);
		return;
	}
	if (k == K_INT || k == K_BOOL) {
		if (lo > hi)
			lo = 0, hi = k == K_BOOL ? 1 : 15;
		unsigned long long span = (unsigned long long)(hi - lo) + 1;
		for (size_t i = 0; i < n; i++)
			p[i] = (T)(long long)(lo + (double)(mix64(seed * 0x9e3779b97f4a7c15ull + i) % span));
		return;
	}
	if (lo > hi)
		lo = -1, hi = 1;
	/* A pool of values on 257 levels (ties are common: max and argmax
	 * rules are exercised), rotated by a random amount per block. */
	const size_t m = 4093;
	std::vector<T> pool(m);
	for (size_t j = 0; j < m; j++)
		pool[j] = from_double<T>(lo + (hi - lo) * (double)(mix64(seed + j) % 257) / 256);
	for (size_t i = 0; i < n; i += m) {
		size_t len = n - i < m ? n - i : m, rot = mix64(seed ^ (i + 1)) % m;
		size_t a = len < m - rot ? len : m - rot;
		memcpy(p + i, &pool[rot], a * sizeof(T));
		memcpy(p + i + a, &pool[0], (len - a) * sizeof(T));
	}
}

struct Checker {
	int passed = 0, failed = 0, skipped = 0;
	int finish()
	{
		printf("%d checks passed, %d failed, %d skipped\n", passed, failed, skipped);
		return failed ? 1 : 0;
	}
};

struct Case {
	Checker &chk;
	std::string kernel, shape;
	bool misaligned;
	std::vector<Buffer> bufs;
	bool bad_setup = false;
	double moved = 0; /* the pragma's bytes(...): what a launch really moves; 0: the buffers' sizes */
	static const int TRIALS = 2;

	Case(Checker &c, const char *k, const char *s, int mis) : chk(c), kernel(k), shape(s), misaligned(mis) {}

	template <typename T>
	void add(const char *name, long long n, bool output, double lo, double hi, double rtol, double atol)
	{
		Buffer b;
		b.name = name;
		b.kind = kind_of<T>();
		b.esize = sizeof(T);
		b.n = n > 0 ? (size_t)n : 0;
		b.output = output;
		b.lo = lo;
		b.hi = hi;
		b.rtol = rtol >= 0 ? rtol : default_tol(b.kind, false);
		b.atol = atol >= 0 ? atol : default_tol(b.kind, true);
		b.fill = fill_values<T>;
		b.get = as_double<T>;
		b.shift = misaligned ? sizeof(T) : 0;
		bufs.push_back(b);
	}

	std::string label(const char *who) const
	{
		return kernel + " " + shape + (misaligned ? " (misaligned)" : "") + " [" + who + "]";
	}

	/*
	 * Allocate and make the trials' data; true (and a "skip" line) when an
	 * output has more than max_elements elements or a launch moves more
	 * than 32 bytes per such element (a CPU runs the threads one by one).
	 */
	bool skip(long long max_elements)
	{
		double bytes = 0;
		for (auto &b : bufs) {
			bytes += (double)b.bytes();
			if (b.output && (long long)b.n > max_elements) {
				printf("skip  %s: an output has more than %lld elements\n", label("all").c_str(), max_elements);
				chk.skipped++;
				return true;
			}
		}
		if (moved > 0)
			bytes = moved;
		if (bytes > 32.0 * (double)max_elements) {
			printf("skip  %s: a launch moves more than %lld bytes\n", label("all").c_str(), 32 * max_elements);
			chk.skipped++;
			return true;
		}
		for (size_t i = 0; i < bufs.size(); i++) {
			Buffer &b = bufs[i];
			b.mem.assign(2 * RED + b.bytes() + 16, 0xCB);
			b.init.assign(TRIALS, std::vector<unsigned char>(b.bytes()));
			b.ref.assign(TRIALS, std::vector<unsigned char>());
			for (int t = 0; t < TRIALS; t++)
				b.fill(b.init[t].data(), b.n, 1000003ull * (i + 1) + 7919ull * t + (misaligned ? 17 : 0), b.lo,
				       b.hi);
		}
		return false;
	}

	void load(int trial)
	{
		for (auto &b : bufs) {
			memset(b.mem.data(), 0xCB, b.mem.size());
			if (trial == 1 && b.output && !b.read)
				memset(b.data(), 0xFF, b.bytes());
			else if (b.bytes())
				memcpy(b.data(), b.init[trial].data(), b.bytes());
		}
	}

	void *ptr(int i) { return bufs[i].data(); }

	/* The first broken red zone or modified input, or "". */
	std::string damage(int trial)
	{
		char line[512];
		for (auto &b : bufs) {
			const unsigned char *m = b.mem.data();
			size_t end = RED + b.shift + b.bytes();
			for (size_t j = 0; j < b.mem.size(); j++) {
				if (j >= RED + b.shift && j < end)
					continue;
				if (m[j] != 0xCB) {
					long long at = ((long long)j - (long long)(RED + b.shift)) / (long long)b.esize;
					snprintf(line, sizeof line, "out-of-bounds: %s written at element %lld (of %zu)",
						 b.name.c_str(), at, b.n);
					return line;
				}
			}
			if (!b.output && b.bytes() && memcmp(b.data(), b.init[trial].data(), b.bytes())) {
				snprintf(line, sizeof line, "input-modified: %s", b.name.c_str());
				return line;
			}
		}
		return "";
	}

	/*
	 * Run f in a child process: a kernel that crashes (a misaligned
	 * vector access faults on the CPU too, a wild write) kills only the
	 * child.  Returns f's exit status, or 128 + the signal that ended it.
	 */
	static int isolated(const std::function<int()> &f)
	{
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			return f();
		if (pid == 0) {
			int rc = f();
			fflush(stdout);
			_exit(rc);
		}
		int st = 0;
		while (waitpid(pid, &st, 0) < 0)
			;
		return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	}

	void reference(const std::function<void()> &run)
	{
		/* As the verifier asks the original: does it take these pointers? */
		int probe = isolated([&] {
			load(0);
			run();
			return 0;
		});
		if (probe) {
			if (misaligned) {
				printf("skip  %s: the original itself faults on misaligned buffers (signal %d)\n",
				       label("all").c_str(), probe - 128);
				chk.skipped++;
			} else {
				printf("FAIL  %s: the original itself crashes (status %d)\n", label("original").c_str(), probe);
				chk.failed++;
			}
			bad_setup = true;
			return;
		}
		/* The probe: outputs whose results depend on what they held are read. */
		load(0);
		run();
		std::vector<std::vector<unsigned char>> first;
		for (auto &b : bufs)
			first.emplace_back(b.data(), b.data() + b.bytes());
		for (auto &b : bufs)
			if (b.output)
				b.fill(b.data(), b.n, 424242, b.lo, b.hi);
		for (auto &b : bufs)
			if (!b.output && b.bytes())
				memcpy(b.data(), b.init[0].data(), b.bytes());
		run();
		for (size_t i = 0; i < bufs.size(); i++)
			if (bufs[i].output && memcmp(first[i].data(), bufs[i].data(), bufs[i].bytes()))
				bufs[i].read = true;
		for (int t = 0; t < TRIALS; t++) {
			load(t);
			run();
			std::string d = damage(t);
			if (!d.empty()) {
				printf("FAIL  %s: the original itself: %s (the pragma does not describe it)\n",
				       label("original").c_str(), d.c_str());
				chk.failed++;
				bad_setup = true;
				return;
			}
			for (auto &b : bufs)
				if (b.output)
					b.ref[t].assign(b.data(), b.data() + b.bytes());
		}
	}

	/* Compare output b after trial t; "" when it matches. */
	std::string compare(Buffer &b, int t)
	{
		const void *ref = b.ref[t].data(), *got = b.data();
		if (b.kind == K_OPAQUE) {
			if (memcmp(ref, got, b.bytes()))
				return b.name + ": differs (compared byte for byte)";
			return "";
		}
		double ss = 0;
		size_t nf = 0;
		for (size_t i = 0; i < b.n; i++) {
			double r = b.get(ref, i);
			if (isfinite(r)) {
				ss += r * r;
				nf++;
			}
		}
		double rms = nf && ss > 0 ? sqrt(ss / nf) : 1;
		size_t bad = 0, first = 0;
		for (size_t i = 0; i < b.n; i++) {
			double r = b.get(ref, i), g = b.get(got, i);
			bool ok;
			if (isnan(r))
				ok = isnan(g);
			else if (isinf(r))
				ok = g == r;
			else if (!isfinite(g))
				ok = false;
			else if (b.kind == K_INT || b.kind == K_BOOL)
				ok = g == r;
			else
				ok = fabs(g - r) <= b.atol * rms + b.rtol * fabs(r);
			if (!ok && bad++ == 0)
				first = i;
		}
		if (!bad)
			return "";
		char line[512];
		snprintf(line, sizeof line, "%s: %zu of %zu elements differ (trial %d, rtol %g, atol %g x rms %g); "
			 "first at %zu: original %.9g, variant %.9g", b.name.c_str(), bad, b.n, t, b.rtol, b.atol, rms,
			 first, b.get(ref, first), b.get(got, first));
		return line;
	}

	void variant(const char *name, const std::function<void()> &run)
	{
		if (bad_setup)
			return;
		int rc = isolated([&] {
			std::string why;
			for (int t = 0; t < TRIALS && why.empty(); t++) {
				load(t);
				run();
				why = damage(t);
				for (auto &b : bufs)
					if (why.empty() && b.output)
						why = compare(b, t);
			}
			if (why.empty()) {
				printf("ok    %s\n", label(name).c_str());
				return 0;
			}
			printf("FAIL  %s: %s\n", label(name).c_str(), why.c_str());
			return 1;
		});
		if (rc > 1)
			printf("FAIL  %s: crash: %s %d\n", label(name).c_str(), rc > 128 ? "signal" : "exit status",
			       rc > 128 ? rc - 128 : rc);
		if (rc == 0)
			chk.passed++;
		else
			chk.failed++;
		fflush(stdout);
	}
};

} /* namespace astra_emu */

#endif
