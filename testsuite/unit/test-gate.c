/*
 * Unit tests for the candidate gate's rule that a variant defines device
 * code only (astra_extract_candidate, front/extract.c): no host-callable
 * function of any kind - constructors, destructors, conversion and other
 * operators of the types it defines, __host__ __device__ functions - and
 * no call in its launch expressions but the documented well-known names.
 * The audit's reproduction: a type with a host constructor that runs
 * popen(), constructed in the variant's launch expression, ran in the
 * user's program at the launch site.
 */
#include "autoconfig.h"

#include <stdlib.h>

#include "front/extract.h"
#include "testsuite/unit/unit.h"

static const char original[] =
	"#include <cstdio>\n"
	"#pragma astra shapes(n=1024) buffers(y[n], x[n]) outputs(y)\n"
	"#pragma astra launch(grid=(n + 255) / 256, block=256)\n"
	"__global__ void axsq(float *y, const float *x, float a, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n) y[i] = a * x[i] * x[i];\n"
	"}\n"
	"#pragma astra shapes(n=4) buffers(p[n]) outputs(p) launch(grid=1, block=n) types(T=float)\n"
	"template <typename T>\n"
	"__global__ void tk(T *p, int n) { p[threadIdx.x] = T(n); }\n";

static struct astra_tu tu;

static char *try(const char *name, const char *text)
{
	struct astra_buf why = ASTRA_BUF_INIT;
	struct astra_variant v;
	const struct astra_kernel *k = astra_tu_kernel(&tu, name);
	int ret;
	memset(&v, 0, sizeof(v));
	v.text = xstrdup(text);
	ret = astra_extract_candidate(k, &v, NULL, &why);
	CHECK((ret == 0) == (why.len == 0));
	astra_variant_release(&v);
	return astra_buf_detach(&why, NULL);
}

#define ACCEPT(name, text)                      \
	do {                                    \
		char *why_ = try(name, text);   \
		CHECK_STR(why_, "");            \
		free(why_);                     \
	} while (0)

/* Rejected, with a reason that contains `part`. */
#define REJECT(name, text, part)                                                      \
	do {                                                                          \
		char *why_ = try(name, text);                                         \
		CHECK(why_ && *why_);                                                 \
		if (!strstr(why_, part)) {                                            \
			unit_failures++;                                              \
			fprintf(stderr, "%s:%d: reason \"%s\" lacks \"%s\"\n", __FILE__, \
				__LINE__, why_, part);                                \
		}                                                                     \
		free(why_);                                                           \
	} while (0)

#define KERNEL "__global__ void axsq(float *y, const float *x, float a, int n) { }\n"

int main(void)
{
	CHECK_INT(astra_extract_text(&tu, "orig.cu", original, sizeof(original) - 1, NULL), 0);
	CHECK_INT(tu.nr_kernels, 2);

	/* The audit's variant: a type whose host constructor runs a command, built at the launch. */
	REJECT("axsq",
	       "struct Boom { int v; Boom(int n) : v(n) { popen(\"id\", \"r\"); } };\n"
	       "#pragma astra launch(grid=Boom(n).v, block=256)\n" KERNEL,
	       "constructor 'Boom' of 'Boom' is not __device__");
	REJECT("axsq",
	       "struct Boom { int v; Boom(int n) : v(n) { popen(\"id\", \"r\"); } };\n"
	       "#pragma astra launch(grid=Boom(n).v, block=256)\n" KERNEL,
	       "launch(grid=...) calls 'Boom'");
	/* __host__ __device__ helpers: callable from host code. */
	REJECT("axsq", "__host__ __device__ int half(int v) { return v / 2; }\n" KERNEL,
	       "__host__ __device__ function 'half'");
	REJECT("axsq", "template <class T> __host__ __device__ T half(T v) { return v / 2; }\n" KERNEL,
	       "__host__ __device__ function 'half'");
	/* Members of the variant's types, of every kind. */
	REJECT("axsq", "struct P { __host__ __device__ P() {} float a; };\n" KERNEL, "constructor 'P' of 'P' is __host__");
	REJECT("axsq", "struct P { __device__ ~P(); ~P() {} };\n" KERNEL, "destructor");
	REJECT("axsq", "struct P { float a; operator int() const { return 0; } };\n" KERNEL, "conversion operator");
	REJECT("axsq", "struct P { float a; P operator+(P o) const { return o; } };\n" KERNEL,
	       "member function 'operator+' of 'P' is not __device__");
	REJECT("axsq", "struct P { float a; __host__ __device__ float get() const { return a; } };\n" KERNEL,
	       "member function 'get' of 'P' is __host__");
	REJECT("axsq", "struct P { template <class U> U as() const { return U(); } };\n" KERNEL,
	       "member function 'as' of 'P'");
	REJECT("axsq", "struct P { struct Q { Q() {} }; };\n" KERNEL, "constructor 'Q' of 'P'");
	REJECT("axsq", "struct P { friend int peek(P) { return 1; } };\n" KERNEL, "'peek' of 'P'");
	REJECT("axsq", "template <class T> struct W { T v; W(T x) : v(x) {} };\n" KERNEL, "constructor 'W<T>' of 'W'");
	REJECT("axsq", "union U { float f; int i; U() {} };\n" KERNEL, "constructor 'U' of 'U'");
	/* ...while device-only members, and members the compiler writes, are fine. */
	ACCEPT("axsq", "struct P {\n"
		       "\tfloat a, b;\n"
		       "\t__device__ P() : a(0), b(0) {}\n"
		       "\t__device__ explicit P(float v) : a(v), b(v) {}\n"
		       "\tP(const P &) = default;\n"
		       "\tP &operator=(const P &) = delete;\n"
		       "\t__device__ ~P() {}\n"
		       "\t__device__ operator float() const { return a + b; }\n"
		       "\t__device__ P operator+(const P &o) const { return P(a + o.a); }\n"
		       "\ttemplate <class U> __device__ U as() const { return U(a); }\n"
		       "};\n"
		       "struct Plain { float x, y; };\n"
		       "constexpr int VEC = 4;\n"
		       "#pragma astra launch(grid=(n / VEC + 255) / 256, block=256, shmem=sizeof(Plain) * 256)\n" KERNEL);

	/* Calls in launch expressions: only the well-known names. */
	ACCEPT("axsq", "#pragma astra launch(grid=dim3(std::min((n + 255) / 256, 65535)), block=dim3(256), "
		       "shmem=static_cast<size_t>(n) * sizeof(float))\n" KERNEL);
	ACCEPT("axsq", "#pragma astra launch(grid=max((int)(n + 3) / 4, 1), block=n > (1 << 20) ? 1024 : 256)\n" KERNEL);
	ACCEPT("axsq", "#pragma astra launch(grid=int(n * 0.5f) + 1, block=unsigned{256})\n" KERNEL);
	REJECT("axsq", "__device__ int blocks(int n) { return n; }\n"
		       "#pragma astra launch(grid=blocks(n), block=256)\n" KERNEL,
	       "launch(grid=...) calls 'blocks'");
	REJECT("axsq", "struct G { int v; };\n#pragma astra launch(grid=G{n}.v, block=256)\n" KERNEL,
	       "launch(grid=...) calls 'G'");
	REJECT("axsq", "#pragma astra launch(grid=n, block=256, shmem=[]{ return 0; }())\n" KERNEL,
	       "calls the result of an expression");
	REJECT("axsq", "#pragma astra launch(grid=(n)(1), block=256)\n" KERNEL, "calls the result of an expression");
	REJECT("axsq", "#pragma astra launch(grid=n, block=a.size())\n" KERNEL, "calls 'size'");
	REJECT("axsq", "#pragma astra launch(grid=n, block=::popen(\"id\", \"r\") ? 1 : 2)\n" KERNEL, "uses 'popen'");
	REJECT("tk", "#pragma astra launch(grid=T(n), block=n)\n"
		     "template <typename T>\n"
		     "__global__ void tk(T *p, int n) { }\n",
	       "launch(grid=...) calls 'T'");

	astra_tu_release(&tu);
	return unit_done();
}
