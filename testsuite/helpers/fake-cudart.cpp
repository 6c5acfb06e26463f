/*
 * fake-cudart.cpp - a host stand-in for the CUDA runtime library, so that
 * a program nvcc compiled can run on a machine without a GPU: the host
 * side of a launch (configuration, arguments, the runtime calls around it)
 * is real, the kernel is whatever the program registered as its host
 * emulation (fake_cuda_emulate), or nothing.
 *
 * Link it instead of the runtime: `nvcc -cudart none ... fake-cudart.o`.
 * "Device" memory is host memory with a table of allocations, so that
 * cuMemGetAddressRange (handed out through cudaGetDriverEntryPoint*) can
 * answer; copies are memmove; synchronization does nothing.  Every runtime
 * call is counted: with FAKE_CUDA_STATS=FILE the counts are written there
 * at exit, and fake_cuda_calls() returns the running total (the capture
 * build's overhead benchmark counts the calls a launch makes with it).
 * FAKE_CUDA_CAPTURING=1 makes every stream report that it is being
 * captured into a graph.  FAKE_CUDA_FAIL_GRID=X makes a launch whose
 * grid.x is X fail (cudaErrorLaunchOutOfResources, left as the last error,
 * as the runtime does).  FAKE_CUDA_CC=89 makes the device an sm_89 one
 * (default sm_90).  A test fixture, not a simulator: it exercises
 * the host code that surrounds kernels (capture builds: passes/capture-rt.cuh).
 */
#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

typedef void (*fake_emulation)(dim3 grid, dim3 block, void **args);

namespace {

/* Constructed on first use: other translation units register kernels at static-init time. */
struct State {
	std::mutex mu;
	std::map<std::string, long long> counts;
	long long total = 0;
	std::map<const void *, std::string> names;          /* host stub -> device name */
	std::vector<std::pair<std::string, fake_emulation> > emulations;
	std::map<unsigned long long, size_t> allocs;        /* base -> size */
	cudaError_t last = cudaSuccess;
	~State()
	{
		const char *f = getenv("FAKE_CUDA_STATS");
		FILE *o = f ? fopen(f, "w") : nullptr;
		if (!o)
			return;
		for (auto &c : counts)
			fprintf(o, "%s %lld\n", c.first.c_str(), c.second);
		fclose(o);
	}
};
State &S()
{
	static State s;
	return s;
}
#define mu S().mu
#define counts S().counts
#define total S().total
#define names S().names
#define emulations S().emulations
#define allocs S().allocs
#define last S().last

struct Config {
	dim3 grid, block;
	size_t shmem;
	cudaStream_t stream;
};
thread_local std::vector<Config> configs;

void count(const char *what)
{
	std::lock_guard<std::mutex> g(mu);
	counts[what]++;
	total++;
}

int range(unsigned long long *base, size_t *size, unsigned long long p)
{
	count("cuMemGetAddressRange");
	std::lock_guard<std::mutex> g(mu);
	auto it = allocs.upper_bound(p);
	if (it == allocs.begin())
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	--it;
	if (p >= it->first + it->second)
		return 1;
	*base = it->first;
	*size = it->second;
	return 0;
}

} /* namespace */

extern "C" {

/* The program says how to run a kernel: every launch whose device name contains `name`. */
void fake_cuda_emulate(const char *name, fake_emulation fn)
{
	emulations.push_back(std::make_pair(std::string(name), fn));
}

long long fake_cuda_calls(void)
{
	std::lock_guard<std::mutex> g(mu);
	return total;
}

void **__cudaRegisterFatBinary(void *)
{
	static void *handle;
	return &handle;
}
void __cudaRegisterFatBinaryEnd(void **) {}
char __cudaInitModule(void **)
{
	return 0;
}
void __cudaUnregisterFatBinary(void **) {}
void __cudaRegisterFunction(void **, const char *hostFun, char *, const char *deviceName, int, uint3 *, uint3 *,
			    dim3 *, dim3 *, int *)
{
	names[(const void *)hostFun] = deviceName;
}
void __cudaRegisterVar(void **, char *, char *, const char *, int, size_t, int, int) {}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, struct CUstream_st *stream)
{
	count("__cudaPushCallConfiguration");
	configs.push_back(Config{ grid, block, shmem, stream });
	return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, void *stream)
{
	count("__cudaPopCallConfiguration");
	if (configs.empty())
		return cudaErrorInvalidConfiguration;
	Config c = configs.back();
	configs.pop_back();
	*grid = c.grid;
	*block = c.block;
	*shmem = c.shmem;
	*(cudaStream_t *)stream = c.stream;
	return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *k, const void *fun)
{
	*k = (cudaKernel_t)fun;
	return cudaSuccess;
}

/* The capture recorder's own kernel (passes/capture-rt.cuh): a hash per chunk. */
static void astra_cap_sums(dim3, dim3, void **args)
{
	const unsigned char *p = *(const unsigned char **)args[0];
	unsigned long long n = *(unsigned long long *)args[1], chunk = *(unsigned long long *)args[2];
	unsigned long long nr = *(unsigned long long *)args[3], *sums = *(unsigned long long **)args[4];
	for (unsigned long long c = 0; c < nr; c++) {
		unsigned long long h = 14695981039346656037ULL;
		for (unsigned long long at = c * chunk; at < n && at < (c + 1) * chunk; at++)
			h = (h ^ p[at]) * 1099511628211ULL;
		sums[c] = h;
	}
}

static cudaError_t launch(const void *fun, dim3 grid, dim3 block, void **args)
{
	auto it = names.find(fun);
	const char *fail = getenv("FAKE_CUDA_FAIL_GRID");
	if (it == names.end())
		return last = cudaErrorInvalidDeviceFunction;
	if (fail && *fail && strtoul(fail, nullptr, 10) == grid.x)
		return last = cudaErrorLaunchOutOfResources;
	if (it->second.find("__astra_cap_sums") != std::string::npos) {
		astra_cap_sums(grid, block, args);
		return cudaSuccess;
	}
	for (auto &e : emulations)
		if (it->second.find(e.first) != std::string::npos) {
			e.second(grid, block, args);
			break;
		}
	return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t, cudaStream_t)
{
	count("__cudaLaunchKernel");
	return launch((const void *)kernel, grid, block, args);
}

cudaError_t cudaLaunchKernel(const void *fun, dim3 grid, dim3 block, void **args, size_t, cudaStream_t)
{
	count("cudaLaunchKernel");
	return launch(fun, grid, block, args);
}

/* A launcher raises a variant's shared-memory limit before launching it (passes/rewrite.c). */
cudaError_t cudaFuncSetAttribute(const void *, enum cudaFuncAttribute, int)
{
	count("cudaFuncSetAttribute");
	return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int *n)
{
	count("cudaGetDeviceCount");
	*n = 1;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *d)
{
	count("cudaGetDevice");
	*d = 0;
	return cudaSuccess;
}

/* The device's compute capability: FAKE_CUDA_CC (90 unless set). */
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr attr, int)
{
	count("cudaDeviceGetAttribute");
	const char *e = getenv("FAKE_CUDA_CC");
	int cc = e && *e ? atoi(e) : 90;
	if (attr == cudaDevAttrComputeCapabilityMajor)
		*v = cc / 10;
	else if (attr == cudaDevAttrComputeCapabilityMinor)
		*v = cc % 10;
	else
		return last = cudaErrorInvalidValue;
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
	count("cudaMalloc");
	size_t sz = (n + 255) / 256 * 256;
	*p = aligned_alloc(256, sz ? sz : 256);
	if (!*p)
		return last = cudaErrorMemoryAllocation;
	std::lock_guard<std::mutex> g(mu);
	allocs[(unsigned long long)*p] = n;
	return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
	count("cudaFree");
	if (!p)
		return cudaSuccess;
	{
		std::lock_guard<std::mutex> g(mu);
		allocs.erase((unsigned long long)p);
	}
	free(p);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind)
{
	count("cudaMemcpy");
	memmove(d, s, n);
	return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t)
{
	count("cudaMemcpyAsync");
	memmove(d, s, n);
	return cudaSuccess;
}

cudaError_t cudaMemset(void *p, int v, size_t n)
{
	count("cudaMemset");
	memset(p, v, n);
	return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
	count("cudaDeviceSynchronize");
	return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t)
{
	count("cudaStreamSynchronize");
	return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
	count("cudaStreamCreate");
	static int streams[64], next;
	*s = (cudaStream_t)&streams[next++ % 64];
	return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t)
{
	count("cudaStreamDestroy");
	return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t, cudaStreamCaptureStatus *st)
{
	count("cudaStreamIsCapturing");
	const char *e = getenv("FAKE_CUDA_CAPTURING");
	*st = e && *e == '1' ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
	return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode)
{
	count("cudaThreadExchangeStreamCaptureMode");
	static thread_local cudaStreamCaptureMode current = cudaStreamCaptureModeGlobal;
	cudaStreamCaptureMode old = current;
	current = *mode;
	*mode = old;
	return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
	count("cudaGetLastError");
	cudaError_t e = last;
	last = cudaSuccess;
	return e;
}

cudaError_t cudaPeekAtLastError(void)
{
	count("cudaPeekAtLastError");
	return last;
}

const char *cudaGetErrorString(cudaError_t e)
{
	return e == cudaSuccess ? "no error" : "fake-cudart error";
}

const char *cudaGetErrorName(cudaError_t e)
{
	return e == cudaSuccess ? "cudaSuccess" : "cudaErrorFake";
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned int, unsigned long long,
					     cudaDriverEntryPointQueryResult *q)
{
	count("cudaGetDriverEntryPointByVersion");
	if (!strcmp(symbol, "cuMemGetAddressRange")) {
		*fn = (void *)range;
		if (q)
			*q = cudaDriverEntryPointSuccess;
		return cudaSuccess;
	}
	*fn = nullptr;
	if (q)
		*q = cudaDriverEntryPointSymbolNotFound;
	return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags,
				    cudaDriverEntryPointQueryResult *q)
{
	return cudaGetDriverEntryPointByVersion(symbol, fn, 12000, flags, q);
}

} /* extern "C" */
