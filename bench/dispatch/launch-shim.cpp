/*
 * launch-shim.cpp - stands in for the CUDA runtime's launch path so that
 * a program's host code runs on a machine without a GPU and says which
 * kernel each launch reaches.  Linked into the executable (with -cudart
 * shared), its definitions take precedence over libcudart's: the
 * configuration push/pop of <<<...>>>, the kernel handle and the launch
 * (which prints the kernel's address as an offset in the executable, for
 * `nm` to name; with SHIM_QUIET set it only counts), and the queries the
 * generated launcher makes on its first launch in a multi-architecture
 * build (a device of compute capability $FAKE_CC, 0: none).
 *
 * Used by testsuite/cases/subst/0012-dispatch-launches (which kernel each
 * launch runs) and bench/dispatch.sh (what the host-side choice costs).
 * It follows the launch path of CUDA 12-13's generated stubs; the test
 * checks that it saw every launch and skips otherwise.
 */
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <cuda_runtime_api.h>

static thread_local dim3 cfg_grid, cfg_block;
static thread_local size_t cfg_shmem;
static thread_local void *cfg_stream;
static int launches;

extern "C" unsigned __cudaPushCallConfiguration(dim3 g, dim3 b, size_t shmem, void *stream)
{
	cfg_grid = g;
	cfg_block = b;
	cfg_shmem = shmem;
	cfg_stream = stream;
	return 0;
}

extern "C" cudaError_t __cudaPopCallConfiguration(dim3 *g, dim3 *b, size_t *shmem, void *stream)
{
	*g = cfg_grid;
	*b = cfg_block;
	*shmem = cfg_shmem;
	*(void **)stream = cfg_stream;
	return cudaSuccess;
}

extern "C" cudaError_t __cudaGetKernel(cudaKernel_t *h, const void *fun)
{
	*h = (cudaKernel_t)fun;
	return cudaSuccess;
}

static int quiet = getenv("SHIM_QUIET") != NULL;

static cudaError_t show(const void *fun, dim3 g, dim3 b)
{
	Dl_info info;
	launches++;
	if (quiet)
		return cudaSuccess;
	long off = dladdr(fun, &info) ? (long)((const char *)fun - (const char *)info.dli_fbase) : -1;
	printf(" launch +%lx grid %u block %u\n", off, g.x, b.x);
	return cudaSuccess;
}

extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **, size_t, cudaStream_t)
{
	return show((const void *)k, g, b);
}

extern "C" cudaError_t cudaLaunchKernel(const void *fun, dim3 g, dim3 b, void **, size_t, cudaStream_t)
{
	return show(fun, g, b);
}

static int fake_cc()
{
	const char *s = getenv("FAKE_CC");
	return s ? atoi(s) : 0;
}

extern "C" cudaError_t cudaGetDevice(int *d)
{
	*d = 0;
	return fake_cc() ? cudaSuccess : cudaErrorNoDevice;
}

extern "C" cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, const void *)
{
	*a = cudaFuncAttributes();
	a->ptxVersion = a->binaryVersion = fake_cc();
	return cudaSuccess;
}

extern "C" cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *)
{
	return cudaSuccess;
}

extern "C" cudaError_t cudaGetLastError()
{
	return cudaSuccess;
}

/* How many launches were seen (the case checks that interception works at all). */
static struct report {
	~report() { fprintf(stderr, "shim: %d launches\n", launches); }
} report_at_exit;
