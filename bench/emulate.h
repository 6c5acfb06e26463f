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
 * arrived; __shfl_xor_sync() exchanges through a per-warp slot between two
 * warp barriers; __shared__ variables become function-local statics, which
 * is right because blocks run one at a time.  Threads that returned count
 * as arrived, as on sm_70 and later.
 *
 * What it does not model: timing, concurrency between blocks, memory
 * ordering (a fiber runs until it blocks, so races go unnoticed), fast-math
 * intrinsics (they are the accurate functions here), and alignment faults
 * (a misaligned 128-bit access works on the CPU; the GPU run catches it).
 * It checks logic: indexing, tails, reductions, shuffles, barriers.
 */
#ifndef BENCH_EMULATE_H
#define BENCH_EMULATE_H

#include <cuda_fp16.h> /* host-side half, bfloat16, fp8 and the runtime API types */
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <vector_functions.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif
#include <algorithm>
#include <functional>
#include <vector>

#undef __global__
#undef __device__
#undef __shared__
#define __global__
#define __device__
#define __shared__ static
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

struct Fiber {
	Ctx ctx;
	uint3 tid;
	unsigned linear;
	unsigned shuffles; /* how many this thread made: picks the slot buffer */
	State state;
};

struct Launch {
	dim3 grid, block;
	uint3 block_idx;
	bool direct = false;  /* run threads as plain calls: the kernel has no barrier */
	bool yielded = false; /* some thread of this launch reached a barrier */
	Fiber direct_thread;
	std::vector<Fiber> fibers;
	std::vector<std::vector<char>> stacks;
	std::vector<uint64_t> slots; /* two per thread, for shuffles */
	std::function<void()> body;
	std::vector<char> dyn_smem; /* the launch's dynamic shared memory */
	Ctx sched;
	Fiber *cur = nullptr;
};

inline Launch &L()
{
	static Launch l;
	return l;
}

[[noreturn]] inline void die(const char *msg)
{
	fprintf(stderr, "emulate: %s\n", msg);
	exit(2);
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

/* Release barrier groups once every live member waits; 0 if none can go. */
inline bool release()
{
	Launch &l = L();
	size_t n = l.fibers.size();
	bool any = false;
	for (size_t w = 0; w * 32 < n; w++) {
		size_t end = std::min(n, w * 32 + 32), waiting = 0, live = 0;
		for (size_t i = w * 32; i < end; i++)
			if (l.fibers[i].state != DONE) {
				live++;
				waiting += l.fibers[i].state == WAIT_WARP;
			}
		if (waiting && waiting == live) {
			for (size_t i = w * 32; i < end; i++)
				if (l.fibers[i].state == WAIT_WARP)
					l.fibers[i].state = RUNNABLE;
			any = true;
		}
	}
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
		die("deadlock: threads wait at different barriers (a shuffle in divergent code?)");
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

inline void run_block()
{
	Launch &l = L();
	size_t n = (size_t)l.block.x * l.block.y * l.block.z;
	l.slots.assign(2 * n, 0);
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
		f.shuffles = 0;
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
	if (block.x * block.y * block.z == 0 || block.x * block.y * block.z > 1024 || grid.x == 0)
		die("invalid launch configuration");
	if (shmem > (size_t)227 << 10)
		die("more dynamic shared memory than a block can have (227 KB on sm_90)");
	l.dyn_smem.assign(shmem + 16, (char)0xCD); /* uninitialized on a GPU: not zeros here either */
	l.grid = grid;
	l.block = block;
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

/* `extern __shared__ T name[];`: bench/emu-check rewrites it to a pointer to this. */
inline void *dynamic_shared() { return L().dyn_smem.data(); }

} /* namespace emu */

#define threadIdx (emu::self().tid)
#define blockIdx (emu::L().block_idx)
#define blockDim (emu::L().block)
#define gridDim (emu::L().grid)
#define warpSize 32

inline void __syncthreads() { emu::yield(emu::WAIT_BLOCK); }
/* a barrier of the live lanes of the warp (the mask is taken to be all of them) */
inline void __syncwarp(unsigned = 0xffffffffu) { emu::yield(emu::WAIT_WARP); }

/*
 * Each lane publishes its value and waits for the warp.  Shuffles alternate
 * between two slot buffers: a lane can only overwrite buffer b again after
 * the next shuffle's barrier, which every lane reaches after reading b.
 * other(lane) is the lane, 0-31, whose value this lane gets.
 */
namespace emu {
template <typename T, typename F> inline T shuffle(T v, F other)
{
	static_assert(sizeof(T) <= 8, "shuffle of a wide type");
	Launch &l = L();
	Fiber &f = self();
	size_t n = l.fibers.size(), base = (f.shuffles++ & 1) * n;
	size_t from = (f.linear & ~31u) | other(f.linear & 31u);
	if (from >= n)
		die("shuffle with a lane outside the block");
	memcpy(&l.slots[base + f.linear], &v, sizeof v);
	yield(WAIT_WARP);
	T r;
	memcpy(&r, &l.slots[base + from], sizeof r);
	return r;
}
} // namespace emu

template <typename T> inline T __shfl_xor_sync(unsigned, T v, int lane_mask)
{
	return emu::shuffle(v, [=](unsigned lane) { return lane ^ (unsigned)lane_mask; });
}

/* lane src_lane's value (a broadcast) */
template <typename T> inline T __shfl_sync(unsigned, T v, int src_lane)
{
	return emu::shuffle(v, [=](unsigned) { return (unsigned)src_lane & 31u; });
}

/* lane + delta, or the caller's own value past the warp's end */
template <typename T> inline T __shfl_down_sync(unsigned, T v, unsigned delta)
{
	return emu::shuffle(v, [=](unsigned lane) { return lane + delta < 32 ? lane + delta : lane; });
}

/* the read-only path is a plain load here */
template <typename T> inline T __ldg(const T *p) { return *p; }

inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
/* the device's float overloads (without them a float would become an int) */
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }

/*
 * ---- the runtime calls bench.cu makes, on host memory.  They define the
 * functions cuda_runtime_api.h declares (bench.cu is the only translation
 * unit, and nothing links libcudart); timing has no meaning here.
 */

cudaError_t cudaMalloc(void **p, size_t n)
{
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
