/* Unit tests for astra_extract_candidate: what a variant may and may not be. */
#include "autoconfig.h"

#include <stdlib.h>

#include "front/extract.h"
#include "testsuite/unit/unit.h"

static const char original[] =
	"#define BLOCK 256\n"
	"__device__ float sq(float v) { return v * v; }\n"
	"#pragma astra shapes(n=1024) buffers(y[n], x[n]) outputs(y) scalars(a=2)\n"
	"#pragma astra launch(grid=(n + BLOCK - 1) / BLOCK, block=BLOCK)\n"
	"__global__ void axsq(float *y, const float *x, float a, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n) y[i] = a * sq(x[i]);\n"
	"}\n"
	"#pragma astra shapes(n=4) buffers(p[n]) outputs(p) launch(grid=1, block=n) noalias types(T=float)\n"
	"template <typename T>\n"
	"__global__ void tk(T *p, int n) { p[threadIdx.x] = T(n); }\n"
	"extern \"C\" {\n"
	"#pragma astra shapes(n=4) buffers(p[n]) outputs(p) launch(grid=1, block=n)\n"
	"__global__ void cblock(float *p, int n) { p[0] = n; }\n"
	"}\n"
	"#pragma astra shapes(n=4) buffers(p[n]) outputs(p) launch(grid=1, block=n)\n"
	"extern \"C\" __global__ void cone(float *p, int n) { p[0] = n; }\n"
	"#pragma astra shapes(n=4) buffers(p[n]) outputs(p) launch(grid=(N_HDR + TB_HDR - 1) / TB_HDR, block=TB_HDR)\n"
	"__global__ void hdr(float *p, int n) { p[0] = n; }\n"
	"#pragma astra shapes(n=4) buffers(p[n]) outputs(p) launch(grid=astra_grid, block=256)\n"
	"__global__ void capd(float *p, int n) { p[0] = n; }\n";

static struct astra_tu tu;

/* Check a candidate for kernel `name`; returns the reasons ("" when accepted). */
static char *try(const char *name, const char *text, struct astra_variant *v, struct astra_candidate *c)
{
	struct astra_buf why = ASTRA_BUF_INIT;
	const struct astra_kernel *k = astra_tu_kernel(&tu, name);
	int ret;
	memset(v, 0, sizeof(*v));
	v->text = xstrdup(text);
	if (c)
		memset(c, 0, sizeof(*c));
	ret = astra_extract_candidate(k, v, c, &why);
	CHECK((ret == 0) == (why.len == 0));
	return astra_buf_detach(&why, NULL);
}

#define ACCEPT(name, text)                                              \
	do {                                                            \
		struct astra_variant v_;                                \
		char *why_ = try(name, text, &v_, NULL);                \
		CHECK_STR(why_, "");                                    \
		free(why_);                                             \
		astra_variant_release(&v_);                             \
	} while (0)

#define REJECT(name, text, reason)                                      \
	do {                                                            \
		struct astra_variant v_;                                \
		char *why_ = try(name, text, &v_, NULL);                \
		CHECK_STR(why_, reason);                                \
		free(why_);                                             \
		astra_variant_release(&v_);                             \
	} while (0)

int main(void)
{
	struct astra_variant v;
	struct astra_candidate c;
	char *why;

	CHECK_INT(astra_extract_text(&tu, "orig.cu", original, sizeof(original) - 1, NULL), 0);
	CHECK_INT(tu.nr_kernels, 6);
	CHECK_INT(tu.diags.nr, 0);

	/* Same geometry, a new helper, a constant, a type, conditionals, unroll. */
	why = try("axsq",
		  "// a comment\n"
		  "constexpr int UNROLL = 4;\n"
		  "struct Pair { float a, b; };\n"
		  "__device__ __forceinline__ float sq4(float v) { float s = v * v; return s; }\n"
		  "__global__ void axsq(float *y, const float *x, const float a, int n)\n"
		  "{\n"
		  "#if __CUDA_ARCH__ >= 800\n"
		  "#pragma unroll\n"
		  "\tfor (int k = 0; k < UNROLL; k++) {}\n"
		  "#endif\n"
		  "\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		  "\tif (i < n) y[i] = a * sq4(x[i]);\n"
		  "}\n",
		  &v, &c);
	CHECK_STR(why, "");
	CHECK(v.grid == NULL && v.block == NULL && v.shmem == NULL);
	CHECK_STR(c.kernel.name, "axsq");
	CHECK_INT(c.kernel.nr_params, 4);
	CHECK_INT(c.nr_names, 3);
	CHECK_STR(c.names[0], "UNROLL");
	CHECK_STR(c.names[1], "Pair");
	CHECK_STR(c.names[2], "sq4");
	free(why);
	astra_variant_release(&v);
	astra_candidate_release(&c);

	/* Its own geometry, from the parameters. */
	why = try("axsq",
		  "#pragma astra launch(grid=std::min((n / 4 + 255) / 256, 65535), block=256, shmem=0)\n"
		  "__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
		  &v, NULL);
	CHECK_STR(why, "");
	CHECK_STR(v.grid, "std::min((n / 4 + 255) / 256, 65535)");
	CHECK_STR(v.block, "256");
	CHECK_STR(v.shmem, "0");
	free(why);
	astra_variant_release(&v);

	ACCEPT("tk", "template <class T>\n__global__ void tk(T *__restrict__ p, int n) { }\n");
	ACCEPT("cblock", "__global__ void cblock(float *p, int n) { }\n");
	ACCEPT("cone", "extern \"C\" __global__ void cone(float *p, int n) { }\n");
	ACCEPT("axsq", "extern __shared__ float smem[];\n"
		       "__global__ void axsq(float *y, const float *x, float a, int n) { smem[0] = 0; }\n");

	REJECT("axsq", "", "the variant is empty\n");
	REJECT("axsq", "__global__ void axsq2(float *y, const float *x, float a, int n) { }\n",
	       "line 1: the kernel is named 'axsq2'; it must keep the name 'axsq'\n");
	REJECT("axsq", "__global__ void axsq(float *y, const float *x, int n) { }\n",
	       "line 1: the kernel has 3 parameters; the original has 4\n");
	REJECT("axsq", "__global__ void axsq(float *out, const float *x, float a, int n) { }\n",
	       "line 1: parameter 1 is named 'out'; the original names it 'y' (keep the names: launch expressions "
	       "use them)\n");
	REJECT("axsq", "__global__ void axsq(double *y, const float *x, float a, int n) { }\n",
	       "line 1: parameter 'y' has type 'double *'; the original's is 'float *'\n");
	REJECT("axsq", "__global__ void axsq(float *y, float *x, float a, int n) { }\n",
	       "line 1: parameter 'x' has type 'float *'; the original's is 'const float *'\n");
	REJECT("axsq", "__global__ void axsq(float *__restrict__ y, const float *x, float a, int n) { }\n",
	       "line 1: parameter 'y' gains __restrict__, but the kernel's pragma does not say noalias\n");
	REJECT("tk", "template <typename U>\n__global__ void tk(U *p, int n) { }\n",
	       "line 1: parameter 'p' has type 'U *'; the original's is 'T *'\n"
	       "line 1: template parameter 1 is 'typename U'; the original's is 'typename T'\n");
	REJECT("cone", "__global__ void cone(float *p, int n) { }\n",
	       "line 1: the original kernel is declared extern \"C\"; so must the variant be\n");
	REJECT("axsq", "#include <cuda_fp16.h>\n__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 1: #include is not allowed in a variant (the file's includes are visible)\n");
	REJECT("axsq", "#define V 4\n__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 1: #define is not allowed in a variant (macros would leak into the rest of the file)\n");
	REJECT("axsq", "__device__ int calls;\n__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 1: global variable 'calls': a variant must not keep state between launches (constexpr "
	       "constants and extern __shared__ arrays are fine)\n");
	REJECT("axsq", "struct S { static int count; };\n"
		       "__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 1: static data member 'count' of 'S': a variant must not keep state between launches\n");
	REJECT("axsq", "float host_helper(float v) { return v; }\n"
		       "__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 1: host function 'host_helper': a variant may add only __device__ functions\n");
	REJECT("axsq", "__global__ void axsq(float *y, const float *x, float a, int n) { }\n"
		       "__global__ void axsq_tail(float *y, int n) { }\n",
	       "2 __global__ functions; a variant has exactly one kernel\n");
	REJECT("axsq", "```cuda\n__global__ void axsq(float *y, const float *x, float a, int n) { }\n```\n",
	       "line 1: unexpected text '`'\n"
	       "no __global__ function definition (expected one named 'axsq')\n");
	REJECT("axsq", "namespace v { __device__ int f() { return 1; } }\n"
		       "__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 1: namespace 'v': a variant goes where the kernel is and declares no namespaces\n");
	REJECT("axsq", "using namespace std;\n__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 1: using declarations and namespace aliases would leak into the rest of the file\n");
	REJECT("axsq", "__global__ void axsq(float *y, const float *x, float a, int n) { axsq<<<1, 1>>>(y, x, a, n); }\n",
	       "line 1: a variant must not launch kernels\n");
	/* The file's own BLOCK, which the original's pragma uses: the launcher can evaluate it. */
	ACCEPT("axsq", "#pragma astra launch(grid=n / 4, block=BLOCK)\n"
		       "__global__ void axsq(float *y, const float *x, float a, int n) { }\n");
	REJECT("axsq", "#pragma astra launch(grid=n / 4, block=THREADS)\n"
		       "__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 2: launch(block=...) uses 'THREADS', which is not a parameter of the kernel, a template parameter, "
	       "a name the variant defines or a host-visible name of the kernel's file that the kernel uses\n");
	/* Names of a header (not in the file) that the original's own launch(...) uses: the launch site evaluates them. */
	ACCEPT("hdr", "#pragma astra launch(grid=(N_HDR + TB_HDR - 1) / TB_HDR, block=dim3(16, 16))\n"
		      "__global__ void hdr(float *p, int n) { }\n");
	REJECT("hdr", "#pragma astra launch(grid=(M_HDR + 15) / 16, block=dim3(16, 16))\n"
		      "__global__ void hdr(float *p, int n) { }\n",
	       "line 2: launch(grid=...) uses 'M_HDR', which is not a parameter of the kernel, a template parameter, "
	       "a name the variant defines or a host-visible name of the kernel's file that the kernel uses\n");
	/*
	 * A captured launch's per-shape grid (astra_grid: the capture could not
	 * write it as an expression) is the test program's, never the build's:
	 * a variant that carries it would be stored and then refused at the
	 * lookup (Rodinia's lud_perimeter, 2026-11-28).
	 */
	REJECT("capd", "#pragma astra launch(grid=astra_grid, block=128)\n"
		       "__global__ void capd(float *p, int n) { }\n",
	       "line 2: launch(grid=...) uses 'astra_grid', which is not a parameter of the kernel, a template parameter, "
	       "a name the variant defines or a host-visible name of the kernel's file that the kernel uses\n");
	REJECT("axsq", "#pragma astra launch(grid=n / 4)\n"
		       "__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 2: launch(...) in a variant must give both grid= and block=\n");
	REJECT("axsq", "#pragma astra launch(grid=n, block=1) shapes(n=2)\n"
		       "__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 2: only launch(grid=..., block=..., shmem=...) may appear in a variant's pragma\n");
	REJECT("axsq", "#pragma astra launch(grid=n, block=1\n"
		       "__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 1: expected ',' or ')' after a launch parameter, found the end of the line\n");
	REJECT("axsq", "#pragma astra launch(grid=n, block=1)\n"
		       "__device__ int f() { return 0; }\n"
		       "__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 1: #pragma astra must be right above the kernel\n");
	REJECT("axsq", "#pragma once\n__global__ void axsq(float *y, const float *x, float a, int n) { }\n",
	       "line 1: #pragma is not allowed in a variant\n");

	astra_tu_release(&tu);
	return unit_done();
}
