/*
 * emulate.h - just enough of CUDA on the CPU to run bench.cu without a GPU.
 *
 * Development machines have nvcc but no GPU, and the suite's references
 * must be right before GPU time is spent on them.  Compiled by a host C++
 * compiler with -DBENCH_EMULATE, bench.cu includes this file instead of
 * <cuda_runtime.h>: "device" memory is host memory, the runtime calls it
 * makes are plain functions, and a kernel launch runs every block in turn,
 * each CUDA thread of the block as a fiber with its own stack (or, once
 * the first block showed the kernel has no barrier, as a plain call).
 * __syncthreads() parks a fiber until every live thread of the block has
 * arrived.  Warp operations (__shfl*_sync with their width, __syncwarp,
 * __ballot_sync, __any_sync, __all_sync) park a lane until every live lane
 * of its mask has arrived at the same operation with the same mask; then
 * each lane's result is computed from what the group published.  A lane
 * outside its own mask, lanes meeting at different operations, a width
 * that is not a power of two and a shuffle reading a lane outside the mask
 * are errors; a lane that exited (or does not exist) reads as poison
 * (all bits set: NaN).  __shared__ variables become function-local
 * statics, which is right because blocks run one at a time; `extern
 * __shared__` arrays are the launch's dynamic shared memory, poisoned at
 * the start of every block, with a guard after it that a block must not
 * write (build with bench/emu-build, which turns them into references to
 * that memory).  Threads that returned count as arrived, as on sm_70 and
 * later.  min() and max() keep their operands' common type (64-bit and
 * floating-point values are not truncated to int).
 *
 * The emulated device is an H100's shape (132 SMs, 2048 threads and 32
 * blocks each), so that emu::last_launch() can say how many waves a
 * launch needs: a test shape meant to be multi-wave can check it is.
 *
 * What it does not model: timing, concurrency between blocks, memory
 * ordering (a fiber runs until it blocks, so races go unnoticed), fast-math
 * intrinsics (they are the accurate functions here), divergence within a
 * warp (__activemask() is the lanes that have not exited), and alignment
 * faults (a misaligned 128-bit access works on the CPU; the GPU run catches
 * it).  It checks logic: indexing, tails, reductions, shuffles, barriers.
 */
#ifndef BENCH_EMULATE_H
#define BENCH_EMULATE_H

#include <cuda_fp16.h> /* host-side half, bfloat16, fp8 and the runtime API types */
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <vector_functions.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif
#include <algorithm>
#include <cmath>
#include <functional>
#include <type_traits>
#include <vector>

#undef __global__
#undef __device__
#undef __shared__
#define __global__
#define __device__
#ifdef EMU_SHARED_MARK
/* bench/emu-build's first pass: it rewrites `extern emu__shared__` to
 * `extern` (the dynamic shared memory, see emu_dyn_shared) and the other
 * emu__shared__ to `static`. */
#define __shared__ emu__shared__
#else
#define __shared__ static
#endif
#undef __launch_bounds__
#define __launch_bounds__(...)
#ifndef __clang__
#define __builtin_assume(x) ((void)0)
#endif

namespace emu {

/*
 * Context switches.  glibc's swapcontext makes a signal-mask system call
 * each time, which makes shuffle-heavy kernels take minutes; on x86-64 a
 * six-register switch does instead.  Elsewhere, ucontext.
 */
#if defined(__x86_64__)
extern "C" void emu_switch(void **save_sp, void *to_sp);
asm(".text\n"
    ".globl emu_switch\n"
    ".type emu_switch, @function\n"
    "emu_switch:\n"
    "\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
    "\tmovq %rsp, (%rdi)\n"
    "\tmovq %rsi, %rsp\n"
    "\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
    "\tret\n"
    ".size emu_switch, .-emu_switch\n");

struct Ctx {
	void *sp;
};

inline void ctx_init(Ctx &c, char *stack, size_t size, void (*fn)())
{
	void **sp = (void **)((uintptr_t)(stack + size) & ~(uintptr_t)15);
	*--sp = nullptr;     /* where fn would return to: keeps the call alignment */
	*--sp = (void *)fn;  /* emu_switch's ret enters fn */
	for (int i = 0; i < 6; i++)
		*--sp = nullptr; /* rbp, rbx, r12-r15 */
	c.sp = sp;
}

inline void ctx_switch(Ctx &from, Ctx &to) { emu_switch(&from.sp, to.sp); }
#else
struct Ctx {
	ucontext_t uc;
};

inline void ctx_init(Ctx &c, char *stack, size_t size, void (*fn)())
{
	getcontext(&c.uc);
	c.uc.uc_stack.ss_sp = stack;
	c.uc.uc_stack.ss_size = size;
	c.uc.uc_link = nullptr;
	makecontext(&c.uc, fn, 0);
}

inline void ctx_switch(Ctx &from, Ctx &to) { swapcontext(&from.uc, &to.uc); }
#endif

enum State { RUNNABLE, WAIT_BLOCK, WAIT_WARP, DONE };

/* What a lane waits for at a warp operation. */
enum WarpOp { OP_SYNC, OP_SHFL, OP_BALLOT };

/* The lane a shuffle reads: a lane number, or one of these. */
enum : unsigned { SRC_OWN = 64 };

struct Fiber {
	Ctx ctx;
	uint3 tid;
	unsigned linear;
	State state;
	/* at a warp operation: */
	WarpOp op;
	unsigned mask;     /* the lanes named by the operation */
	unsigned src;      /* a shuffle's source lane (0-31) or SRC_OWN */
	uint64_t pub;      /* the value (or predicate) this lane contributes */
	uint64_t result;   /* what the operation returns to this lane */
};

/* The emulated device: an H100's SM count and per-SM limits. */
enum { SMS = 132, THREADS_PER_SM = 2048, BLOCKS_PER_SM = 32 };
/* Dynamic shared memory: at most this much (sm_90's opt-in limit), and a
 * guard after the launch's size that no block may write. */
enum : size_t { DYN_SHARED_MAX = 232448, DYN_SHARED_GUARD = 256 };

/* What the last launch was: for tests that mean to be multi-wave. */
struct LaunchStats {
	unsigned long long blocks = 0, threads_per_block = 0, waves = 0;
	size_t dyn_shared = 0;
};

struct Launch {
	dim3 grid, block;
	uint3 block_idx;
	size_t shmem = 0;
	bool direct = false;  /* run threads as plain calls: the kernel has no barrier */
	bool yielded = false; /* some thread of this launch reached a barrier */
	Fiber direct_thread;
	std::vector<Fiber> fibers;
	std::vector<std::vector<char>> stacks;
	std::function<void()> body;
	Ctx sched;
	Fiber *cur = nullptr;
	LaunchStats stats;
};

inline Launch &L()
{
	static Launch l;
	return l;
}

/* End the program from anywhere, a fiber's stack included: exit() would run
 * the destructors that free the stack it runs on. */
[[noreturn]] inline void quit(int status)
{
	fflush(nullptr);
	_exit(status);
}

[[noreturn]] inline void die(const char *msg)
{
	fprintf(stderr, "emulate: %s\n", msg);
	quit(2);
}

inline void yield(State s)
{
	Launch &l = L();
	Fiber *f = l.cur;
	if (l.direct)
		die("a barrier in a block after the first block had none (data-dependent barriers "
		    "are not emulated)");
	l.yielded = true;
	f->state = s;
	ctx_switch(f->ctx, l.sched);
}

inline void entry()
{
	Launch &l = L();
	l.body();
	l.cur->state = DONE;
	ctx_switch(l.cur->ctx, l.sched); /* never resumed */
	die("a finished thread was resumed");
}

/*
 * A warp operation's group can go when every lane of its mask has exited
 * (or does not exist: a partial last warp) or waits at the same operation
 * with the same mask.  Then each waiting lane gets its result: a shuffle
 * the value its source lane published (poison when the source exited), a
 * ballot the bits of the lanes whose predicate was true.
 */
inline bool release_group(size_t w, unsigned mask)
{
	Launch &l = L();
	size_t n = l.fibers.size();
	WarpOp op = OP_SYNC;
	bool first = true;
	for (unsigned b = 0; b < 32; b++) {
		size_t i = w * 32 + b;
		if (!(mask >> b & 1) || i >= n || l.fibers[i].state == DONE)
			continue;
		const Fiber &f = l.fibers[i];
		if (f.state != WAIT_WARP || f.mask != mask)
			return false;
		if (!first && f.op != op)
			die("lanes of a warp meet at different warp operations (__syncwarp, a shuffle, a vote) "
			    "with the same mask");
		op = f.op;
		first = false;
	}
	uint64_t ballot = 0;
	if (op == OP_BALLOT)
		for (unsigned b = 0; b < 32; b++) {
			size_t i = w * 32 + b;
			if ((mask >> b & 1) && i < n && l.fibers[i].state == WAIT_WARP && l.fibers[i].pub)
				ballot |= 1ull << b;
		}
	for (unsigned b = 0; b < 32; b++) {
		size_t i = w * 32 + b;
		if (!(mask >> b & 1) || i >= n || l.fibers[i].state != WAIT_WARP)
			continue;
		Fiber &f = l.fibers[i];
		if (op == OP_SHFL) {
			if (f.src == SRC_OWN)
				f.result = f.pub;
			else if (w * 32 + f.src >= n || l.fibers[w * 32 + f.src].state == DONE)
				f.result = ~0ull; /* an exited lane: undefined on the GPU */
			else
				f.result = l.fibers[w * 32 + f.src].pub;
		} else if (op == OP_BALLOT) {
			f.result = ballot;
		}
		f.state = RUNNABLE;
	}
	return true;
}

/* Release barrier groups once every live member waits; 0 if none can go. */
inline bool release()
{
	Launch &l = L();
	size_t n = l.fibers.size();
	bool any = false;
	for (size_t w = 0; w * 32 < n; w++)
		for (size_t i = w * 32; i < std::min(n, w * 32 + 32); i++)
			if (l.fibers[i].state == WAIT_WARP && release_group(w, l.fibers[i].mask))
				any = true;
	if (any)
		return true;
	size_t waiting = 0, live = 0;
	for (auto &f : l.fibers)
		if (f.state != DONE) {
			live++;
			waiting += f.state == WAIT_BLOCK;
		}
	if (!live)
		return false;
	if (waiting != live)
		die("deadlock: threads wait at different barriers (a shuffle in divergent code, or a warp "
		    "operation whose mask names a lane that never comes?)");
	for (auto &f : l.fibers)
		f.state = RUNNABLE;
	return true;
}

inline uint3 thread_index(size_t i)
{
	Launch &l = L();
	return make_uint3((unsigned)(i % l.block.x), (unsigned)(i / l.block.x % l.block.y),
			  (unsigned)(i / ((size_t)l.block.x * l.block.y)));
}

} /* namespace emu */

/*
 * The dynamic shared memory of the running block: bench/emu-build points
 * every `extern __shared__` array at it (a C name, for the linker).
 */
extern "C" {
alignas(256) unsigned char emu_dyn_shared[emu::DYN_SHARED_MAX + emu::DYN_SHARED_GUARD];
}

namespace emu {

inline void run_block_threads();

inline void run_block()
{
	Launch &l = L();
	/* Shared memory starts undefined: poison, so that a read before a
	 * write shows; the guard after it must still be poison afterwards. */
	memset(emu_dyn_shared, 0xff, l.shmem + DYN_SHARED_GUARD);
	run_block_threads();
	for (size_t i = l.shmem + DYN_SHARED_GUARD; i-- > l.shmem;)
		if (emu_dyn_shared[i] != 0xff) {
			fprintf(stderr, "emulate: block (%u,%u,%u) wrote up to %zu bytes past its %zu bytes of "
				"dynamic shared memory\n", l.block_idx.x, l.block_idx.y, l.block_idx.z, i - l.shmem + 1,
				l.shmem);
			emu::quit(2);
		}
}

inline void run_block_threads()
{
	Launch &l = L();
	size_t n = (size_t)l.block.x * l.block.y * l.block.z;
	if (l.direct) {
		/* The first block never reached a barrier: no fibers needed. */
		for (size_t i = 0; i < n; i++) {
			l.direct_thread.linear = (unsigned)i;
			l.direct_thread.tid = thread_index(i);
			l.cur = &l.direct_thread;
			l.body();
		}
		return;
	}
	l.fibers.assign(n, Fiber());
	if (l.stacks.size() < n)
		l.stacks.resize(n, std::vector<char>(64 << 10));
	for (size_t i = 0; i < n; i++) {
		Fiber &f = l.fibers[i];
		f.linear = (unsigned)i;
		f.tid = thread_index(i);
		f.state = RUNNABLE;
		ctx_init(f.ctx, l.stacks[i].data(), l.stacks[i].size(), entry);
	}
	do {
		for (auto &f : l.fibers)
			if (f.state == RUNNABLE) {
				l.cur = &f;
				ctx_switch(l.sched, f.ctx);
			}
	} while (release());
}

template <typename F, typename... A> void launch(dim3 grid, dim3 block, size_t shmem, F kernel, A... args)
{
	Launch &l = L();
	unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
	unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
	if (threads == 0 || threads > 1024 || block.z > 64 || blocks == 0 || grid.y > 65535 || grid.z > 65535)
		die("invalid launch configuration");
	if (shmem > DYN_SHARED_MAX)
		die("invalid launch configuration: more dynamic shared memory than an SM has");
	l.grid = grid;
	l.block = block;
	l.shmem = shmem;
	/* Resident blocks: limited by threads (whole warps) and by blocks per SM. */
	unsigned long long warps = (threads + 31) / 32;
	unsigned long long per_sm = std::min<unsigned long long>(BLOCKS_PER_SM, THREADS_PER_SM / 32 / warps);
	l.stats.blocks = blocks;
	l.stats.threads_per_block = threads;
	l.stats.waves = (blocks + SMS * per_sm - 1) / (SMS * per_sm);
	l.stats.dyn_shared = shmem;
	l.body = [&] { kernel(args...); };
	l.direct = l.yielded = false;
	for (unsigned z = 0; z < grid.z; z++)
		for (unsigned y = 0; y < grid.y; y++)
			for (unsigned x = 0; x < grid.x; x++) {
				l.block_idx = make_uint3(x, y, z);
				run_block();
				l.direct = !l.yielded;
			}
}

inline Fiber &self() { return *L().cur; }

inline const LaunchStats &last_launch() { return L().stats; }
/* `extern __shared__ T name[];`: bench/emu-check rewrites it to a pointer to this. */
inline void *dynamic_shared() { return emu_dyn_shared; }

} /* namespace emu */

#define threadIdx (emu::self().tid)
#define blockIdx (emu::L().block_idx)
#define blockDim (emu::L().block)
#define gridDim (emu::L().grid)
constexpr int warpSize = 32; /* a name, not a macro: cudaDeviceProp has a member of that name */

inline void __syncthreads() { emu::yield(emu::WAIT_BLOCK); }

namespace emu {
/* Park this lane at a warp operation until its group is complete. */
inline uint64_t warp_op(WarpOp op, unsigned mask, unsigned src, uint64_t pub, const char *what)
{
	Fiber &f = self();
	unsigned lane = f.linear & 31u;
	if (!(mask >> lane & 1)) {
		fprintf(stderr, "emulate: lane %u of thread %u calls %s with mask 0x%08x, which does not name it\n",
			lane, f.linear, what, mask);
		emu::quit(2);
	}
	if (src != SRC_OWN && !(mask >> src & 1)) {
		fprintf(stderr, "emulate: lane %u's %s reads lane %u, which mask 0x%08x does not name\n", lane,
			what, src, mask);
		emu::quit(2);
	}
	f.op = op;
	f.mask = mask;
	f.src = src;
	f.pub = pub;
	yield(WAIT_WARP);
	return f.result;
}

inline unsigned check_width(int width, const char *what)
{
	if (width < 1 || width > 32 || (width & (width - 1))) {
		fprintf(stderr, "emulate: %s with width %d (a power of two from 1 to 32)\n", what, width);
		emu::quit(2);
	}
	return (unsigned)width;
}

/* Publish v, wait for the group, return the source lane's value (src from
 * lane: a lane number or SRC_OWN). */
template <typename T, typename F> inline T shuffle(unsigned mask, T v, F src_of, const char *what)
{
	static_assert(sizeof(T) <= 8, "shuffle of a wide type");
	uint64_t bits = 0;
	memcpy(&bits, &v, sizeof v);
	uint64_t got = warp_op(OP_SHFL, mask, src_of(self().linear & 31u), bits, what);
	T r;
	memcpy(&r, &got, sizeof r);
	return r;
}
} // namespace emu

/* a barrier of the lanes of mask (which must name the caller) */
inline void __syncwarp(unsigned mask = 0xffffffffu) { emu::warp_op(emu::OP_SYNC, mask, emu::SRC_OWN, 0, "__syncwarp"); }

/* Width: the warp is split into groups of width lanes; a lane reading past
 * its own group's end (or, for up, before its start) gets its own value. */
template <typename T> inline T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32)
{
	unsigned w = emu::check_width(width, "__shfl_sync");
	return emu::shuffle(mask, v, [=](unsigned lane) { return (lane & ~(w - 1)) | ((unsigned)src_lane & (w - 1)); },
			    "__shfl_sync");
}

template <typename T> inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32)
{
	unsigned w = emu::check_width(width, "__shfl_xor_sync");
	return emu::shuffle(mask, v, [=](unsigned lane) {
		unsigned j = (lane ^ (unsigned)lane_mask) & 31u;
		return j > ((lane & ~(w - 1)) | (w - 1)) ? (unsigned)emu::SRC_OWN : j;
	}, "__shfl_xor_sync");
}

template <typename T> inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
	unsigned w = emu::check_width(width, "__shfl_down_sync");
	return emu::shuffle(mask, v, [=](unsigned lane) {
		return (lane & (w - 1)) + delta < w ? lane + delta : (unsigned)emu::SRC_OWN;
	}, "__shfl_down_sync");
}

template <typename T> inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
	unsigned w = emu::check_width(width, "__shfl_up_sync");
	return emu::shuffle(mask, v, [=](unsigned lane) {
		return (lane & (w - 1)) >= delta ? lane - delta : (unsigned)emu::SRC_OWN;
	}, "__shfl_up_sync");
}

inline unsigned __ballot_sync(unsigned mask, int pred)
{
	return (unsigned)emu::warp_op(emu::OP_BALLOT, mask, emu::SRC_OWN, pred != 0, "__ballot_sync");
}
inline int __any_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) != 0; }
inline int __all_sync(unsigned mask, int pred) { return __ballot_sync(mask, !pred) == 0; }

/* the lanes of the caller's warp that have not exited (no divergence here) */
inline unsigned __activemask()
{
	emu::Launch &l = emu::L();
	size_t base = emu::self().linear & ~31u, n = (size_t)l.block.x * l.block.y * l.block.z;
	unsigned m = 0;
	for (unsigned b = 0; b < 32 && base + b < n; b++)
		if (l.direct || l.fibers[base + b].state != emu::DONE)
			m |= 1u << b;
	return m;
}

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }

/*
 * Atomics: the emulated threads run one at a time and switch only at
 * barriers and shuffles, so a read-modify-write is atomic as written.
 */
template <typename T, typename U> inline T atomicAdd(T *p, U v)
{
	T old = *p;
	*p = old + (T)v;
	return old;
}
template <typename T, typename U> inline T atomicSub(T *p, U v)
{
	T old = *p;
	*p = old - (T)v;
	return old;
}
template <typename T, typename U> inline T atomicMax(T *p, U v)
{
	T old = *p;
	*p = old < (T)v ? (T)v : old;
	return old;
}
template <typename T, typename U> inline T atomicMin(T *p, U v)
{
	T old = *p;
	*p = (T)v < old ? (T)v : old;
	return old;
}
template <typename T, typename U> inline T atomicExch(T *p, U v)
{
	T old = *p;
	*p = (T)v;
	return old;
}

/* the read-only path is a plain load here, as are streaming loads (evict first) */
template <typename T> inline T __ldg(const T *p) { return *p; }
template <typename T> inline T __ldcs(const T *p) { return *p; }

inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
/*
 * CUDA's min() and max() are overloaded for every integer and floating
 * type; the result has the operands' common type (the usual arithmetic
 * conversions, as CUDA's mixed overloads do), and floating-point ones are
 * fminf/fmin (a NaN loses).
 */
template <typename A, typename B> inline typename std::common_type<A, B>::type min(A a, B b)
{
	typedef typename std::common_type<A, B>::type C;
	if constexpr (std::is_floating_point<C>::value)
		return std::fmin((C)a, (C)b);
	else
		return (C)a < (C)b ? (C)a : (C)b;
}
template <typename A, typename B> inline typename std::common_type<A, B>::type max(A a, B b)
{
	typedef typename std::common_type<A, B>::type C;
	if constexpr (std::is_floating_point<C>::value)
		return std::fmax((C)a, (C)b);
	else
		return (C)a > (C)b ? (C)a : (C)b;
}

/*
 * ---- the runtime calls bench.cu makes, on host memory.  They define the
 * functions cuda_runtime_api.h declares (bench.cu is the only translation
 * unit, and nothing links libcudart); timing has no meaning here.
 */

cudaError_t cudaMalloc(void **p, size_t n)
{
	static bool once = [] {
		/* Keep freed memory for the next test's buffers instead of
		 * unmapping it: page faults on fresh mappings cost more than
		 * the kernels of a small shape. */
		mallopt(M_MMAP_THRESHOLD, 1 << 30);
		mallopt(M_TRIM_THRESHOLD, 1 << 30);
		return true;
	}();
	(void)once;
	*p = aligned_alloc(256, (n + 255) / 256 * 256);
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T> inline cudaError_t cudaMalloc(T **p, size_t n)
{
	return cudaMalloc((void **)p, n);
}
cudaError_t cudaFree(void *p)
{
	free(p);
	return cudaSuccess;
}
cudaError_t cudaMemset(void *p, int v, size_t n)
{
	memset(p, v, n);
	return cudaSuccess;
}
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind)
{
	memcpy(d, s, n);
	return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t) { return "emulated CUDA error"; }
cudaError_t cudaGetLastError() { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int *n)
{
	*n = 1;
	return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int)
{
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "CPU emulation (bench/emulate.h)");
	p->multiProcessorCount = emu::SMS;
	p->maxThreadsPerMultiProcessor = emu::THREADS_PER_SM;
	p->maxBlocksPerMultiProcessor = emu::BLOCKS_PER_SM;
	p->maxThreadsPerBlock = 1024;
	p->warpSize = 32;
	p->sharedMemPerBlock = 48 << 10;
	p->sharedMemPerBlockOptin = emu::DYN_SHARED_MAX;
	return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int *v)
{
	*v = 0;
	return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int *v)
{
	*v = 0;
	return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *) { emu::die("no timing in emulation"); }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { emu::die("no timing in emulation"); }
cudaError_t cudaEventSynchronize(cudaEvent_t) { emu::die("no timing in emulation"); }
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t) { emu::die("no timing in emulation"); }
cudaError_t cudaEventDestroy(cudaEvent_t) { emu::die("no timing in emulation"); }
cudaError_t cudaMemsetAsync(void *, int, size_t, cudaStream_t) { emu::die("no timing in emulation"); }
cudaError_t cudaMemcpyAsync(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t)
{
	emu::die("no timing in emulation");
}

#endif
