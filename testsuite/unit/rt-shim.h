/*
 * rt-shim.h - a host stand-in for the CUDA runtime calls that the test
 * program's runtime (verify/harness-rt.cuh) makes, so that its protocol can
 * be exercised on a machine without a GPU.
 *
 * Include this before harness-rt.cuh with ASTRA_RT_SHIM defined.  "Device"
 * memory is host memory (256-byte aligned, as cudaMalloc's), copies are
 * memcpy, events read the host clock, and the "kernels" of a test are host
 * lambdas.  A lambda reports what a real kernel would make the driver say
 * through shim_fault() (a sticky error, e.g. an illegal or misaligned
 * address), shim_launch_error() (a launch that cannot start) and
 * shim_hang() (the stream never completes).  It is a test fixture, not a
 * simulator: it checks the runtime's bookkeeping, not CUDA semantics, with
 * two exceptions that the runtime has got wrong before.  New "device"
 * memory holds garbage (0xDB bytes), as cudaMalloc's reused memory does.
 * And work on the legacy default stream (cudaMemcpy and cudaMemset without
 * a stream, or stream 0) is not ordered with the program's non-blocking
 * stream, on which the lambdas "run" at once: a device-to-device copy, a
 * copy from host memory (staged at the call) and a memset return before
 * the GPU does them, so the shim holds them back until something waits for
 * the whole device (cudaFree, cudaDeviceSynchronize, a synchronous copy to
 * the host, a wait on stream 0), the latest a GPU may do them.
 */
#ifndef ASTRA_RT_SHIM_H
#define ASTRA_RT_SHIM_H

#include <cuda_runtime.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

static cudaError_t shim_sticky = cudaSuccess, shim_last = cudaSuccess;
static bool shim_hung = false;

static inline void shim_fault(cudaError_t e)
{
	shim_sticky = e;
}
static inline void shim_launch_error(cudaError_t e)
{
	shim_last = e;
}
static inline void shim_hang()
{
	shim_hung = true;
}

/* Work issued to the legacy default stream and not done yet. */
static std::vector<std::function<void()> > shim_legacy;

static inline bool shim_is_legacy(cudaStream_t s)
{
	return s == 0 || s == cudaStreamLegacy;
}
/* Everything that waits for the whole device does the legacy stream's work first. */
static void shim_drain_legacy()
{
	for (std::function<void()> &f : shim_legacy)
		f();
	shim_legacy.clear();
}

template <class T> static cudaError_t shim_Malloc(T **p, size_t n)
{
	size_t sz = (n + 255) / 256 * 256;
	*p = (T *)aligned_alloc(256, sz ? sz : 256);
	if (*p)
		memset((void *)*p, 0xDB, sz ? sz : 256);  /* stale contents, as reused device memory has */
	return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static cudaError_t shim_Free(void *p)
{
	shim_drain_legacy();  /* cudaFree synchronizes the device */
	free(p);
	return cudaSuccess;
}
static cudaError_t shim_MemsetAsync(void *p, int v, size_t n, cudaStream_t s = 0)
{
	if (shim_is_legacy(s))
		shim_legacy.push_back([=]() { memset(p, v, n); });
	else
		memset(p, v, n);
	return shim_sticky;
}
/* cudaMemset: asynchronous to the host, on the legacy stream. */
static cudaError_t shim_Memset(void *p, int v, size_t n)
{
	return shim_MemsetAsync(p, v, n, 0);
}
static cudaError_t shim_MemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t st = 0)
{
	if (!shim_is_legacy(st)) {
		memmove(d, s, n);
		return shim_sticky;
	}
	if (k == cudaMemcpyHostToDevice) {
		/* Staged from pageable memory at the call; lands later. */
		std::vector<unsigned char> staged((const unsigned char *)s, (const unsigned char *)s + n);
		shim_legacy.push_back([=]() { memcpy(d, staged.data(), n); });
	} else if (k == cudaMemcpyDeviceToDevice) {
		shim_legacy.push_back([=]() { memmove(d, s, n); });
	} else {
		shim_drain_legacy();
		memmove(d, s, n);
	}
	return shim_sticky;
}
/* cudaMemcpy: the legacy stream; only a copy to the host waits for it. */
static cudaError_t shim_Memcpy(void *d, const void *s, size_t n, cudaMemcpyKind k)
{
	return shim_MemcpyAsync(d, s, n, k, 0);
}
static cudaError_t shim_DeviceSynchronize()
{
	shim_drain_legacy();
	return shim_sticky;
}
static cudaError_t shim_StreamSynchronize(cudaStream_t s)
{
	if (shim_is_legacy(s))
		shim_drain_legacy();
	return shim_sticky;
}
static cudaError_t shim_StreamQuery(cudaStream_t)
{
	if (shim_sticky != cudaSuccess)
		return shim_sticky;
	return shim_hung ? cudaErrorNotReady : cudaSuccess;
}
static cudaError_t shim_GetLastError()
{
	cudaError_t e = shim_sticky != cudaSuccess ? shim_sticky : shim_last;
	shim_last = cudaSuccess;
	return e;
}
static double shim_now_ms()
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static cudaError_t shim_EventCreate(cudaEvent_t *e)
{
	*e = (cudaEvent_t) new double(0);
	return cudaSuccess;
}
static cudaError_t shim_EventRecord(cudaEvent_t e, cudaStream_t = 0)
{
	*(double *)e = shim_now_ms();
	return shim_sticky;
}
static cudaError_t shim_EventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	*ms = (float)(*(double *)b - *(double *)a);
	return cudaSuccess;
}
static cudaError_t shim_EventDestroy(cudaEvent_t e)
{
	delete (double *)e;
	return cudaSuccess;
}
static cudaError_t shim_GetDeviceCount(int *n)
{
	*n = 1;
	return cudaSuccess;
}
static cudaError_t shim_GetDevice(int *d)
{
	*d = 0;
	return cudaSuccess;
}
static cudaError_t shim_GetDeviceProperties(cudaDeviceProp *p, int)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->name, "host shim");
	p->major = 9;
	p->l2CacheSize = 1 << 20;
	p->multiProcessorCount = 1;
	p->totalGlobalMem = (size_t)1 << 32;
	return cudaSuccess;
}
static cudaError_t shim_DriverGetVersion(int *v)
{
	*v = 0;
	return cudaSuccess;
}
static cudaError_t shim_DeviceGetAttribute(int *v, cudaDeviceAttr, int)
{
	*v = 0;
	return cudaSuccess;
}
static cudaError_t shim_StreamCreateWithFlags(cudaStream_t *s, unsigned)
{
	static char stream;  /* an address: neither 0 nor cudaStreamLegacy (1) nor cudaStreamPerThread (2) */
	*s = (cudaStream_t)&stream;
	return cudaSuccess;
}
static cudaError_t shim_MemGetInfo(size_t *f, size_t *t)
{
	*f = *t = (size_t)64 << 20;
	return cudaSuccess;
}

#undef cudaGetDeviceProperties
#define cudaMalloc shim_Malloc
#define cudaFree shim_Free
#define cudaMemset shim_Memset
#define cudaMemsetAsync shim_MemsetAsync
#define cudaMemcpy shim_Memcpy
#define cudaMemcpyAsync shim_MemcpyAsync
#define cudaDeviceSynchronize shim_DeviceSynchronize
#define cudaStreamSynchronize shim_StreamSynchronize
#define cudaStreamQuery shim_StreamQuery
#define cudaGetLastError shim_GetLastError
#define cudaEventCreate shim_EventCreate
#define cudaEventRecord shim_EventRecord
#define cudaEventElapsedTime shim_EventElapsedTime
#define cudaEventDestroy shim_EventDestroy
#define cudaGetDeviceCount shim_GetDeviceCount
#define cudaGetDevice shim_GetDevice
#define cudaGetDeviceProperties shim_GetDeviceProperties
#define cudaDriverGetVersion shim_DriverGetVersion
#define cudaRuntimeGetVersion shim_DriverGetVersion
#define cudaDeviceGetAttribute shim_DeviceGetAttribute
#define cudaStreamCreateWithFlags shim_StreamCreateWithFlags
#define cudaMemGetInfo shim_MemGetInfo

static void launch_first_diff(const unsigned char *a, const unsigned char *b, size_t n, unsigned long long *first,
			      cudaStream_t)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i]) {
			if (i < *first)
				*first = i;
			return;
		}
}
static void launch_first_not(const unsigned char *a, size_t n, unsigned char v, unsigned long long *first,
			     cudaStream_t)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != v) {
			if (i < *first)
				*first = i;
			return;
		}
}
static void launch_fma(int, int, float *, int, cudaStream_t)
{
}

#endif
