/* Unit tests for llm-answer.c: code blocks in answers, the candidate check. */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "agents/llm-answer.h"
#include "testsuite/unit/unit.h"

static const char original[] =
	"#include <cuda_fp16.h>\n"
	"#define SQ(x) ((x) * (x))\n"
	"__device__ float helper(float x) { return x; }\n"
	"// a comment with __global__ void not_me(int x) {}\n"
	"#pragma astra optimize\n"
	"#pragma astra shapes(n=1000)\n"
	"#pragma astra buffers(y[n], x[n])\n"
	"#pragma astra launch(grid=(n+255)/256, block=256)\n"
	"__global__ void scale(float *y, const float *__restrict__ x, float a, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n) y[i] = a * x[i]; /* } */\n"
	"}\n"
	"int main() { return 0; }\n";

static const char tmpl[] =
	"#pragma astra types(T=float)\n"
	"template <typename T, int VEC = 4>\n"
	"__global__ void __launch_bounds__(256) add(T *out, const T *a, int n) { out[0] = a[0]; }\n";

/* 0 when answer yields code that passes the check; why gets the reason. */
static int judge(const struct astra_kernel *k, const char *answer, struct astra_variant *v, struct astra_buf *why)
{
	struct astra_buf code = ASTRA_BUF_INIT;
	int r;
	astra_buf_reset(why);
	memset(v, 0, sizeof(*v));
	r = astra_llm_answer_code(answer, k->name, &code, why);
	if (r == 0)
		r = astra_llm_check_candidate(k, code.buf, v, why);
	astra_buf_release(&code);
	return r;
}

static int rejects_with(const struct astra_kernel *k, const char *answer, const char *words)
{
	struct astra_buf why = ASTRA_BUF_INIT;
	struct astra_variant v;
	int ok = judge(k, answer, &v, &why) < 0 && strstr(why.buf, words);
	if (!ok)
		fprintf(stderr, "answer:\n%s\nwhy: %s\n(expected a rejection mentioning \"%s\")\n", answer, why.buf, words);
	astra_llm_variant_clear(&v);
	astra_buf_release(&why);
	return ok;
}

static int accepts(const struct astra_kernel *k, const char *answer)
{
	struct astra_buf why = ASTRA_BUF_INIT;
	struct astra_variant v;
	int ok = judge(k, answer, &v, &why) == 0;
	if (!ok)
		fprintf(stderr, "answer:\n%s\nrejected: %s\n", answer, why.buf);
	astra_llm_variant_clear(&v);
	astra_buf_release(&why);
	return ok;
}

int main(void)
{
	struct astra_kernel k, t, none;
	struct astra_buf why = ASTRA_BUF_INIT, code = ASTRA_BUF_INIT;
	struct astra_variant v;

	/* The stand-in scanner. */
	CHECK_INT(astra_llm_scan_kernel("k.cu", original, strlen(original), &k, &why), 0);
	CHECK_STR(k.name, "scale");
	CHECK_INT(k.nr_params, 4);
	CHECK_INT(k.line, 9);
	if (k.nr_params == 4) {
		CHECK_STR(k.params[0].name, "y");
		CHECK_STR(k.params[0].type, "float *");
		CHECK_STR(k.params[1].name, "x");
		CHECK_STR(k.params[1].type, "const float * __restrict__");
		CHECK_STR(k.params[1].elem_type, "float");
		CHECK_INT(k.params[1].is_const, 1);
		CHECK_INT(k.params[2].is_pointer, 0);
	}
	CHECK(k.text && astra_starts_with(k.text, "__global__ void scale("));
	CHECK(k.text && astra_ends_with(k.text, "}"));
	CHECK(astra_starts_with(original + k.pragma_start, "#pragma astra optimize"));
	CHECK(astra_starts_with(original + k.pragma_end, "__global__"));
	CHECK_INT(astra_llm_scan_kernel("t.cu", tmpl, strlen(tmpl), &t, &why), 0);
	CHECK_STR(t.name, "add");
	CHECK_INT(t.is_template, 1);
	CHECK_INT(t.nr_tmpl, 2);
	if (t.nr_tmpl == 2) {
		CHECK_STR(t.tmpl_params[1], "VEC");
		CHECK_STR(t.tmpl_kinds[1], "int");
	}
	astra_buf_reset(&why);
	/* Without pragma lines there is nothing to scan. */
	CHECK_INT(astra_llm_scan_kernel("n.cu", "__global__ void f(int *x) {}", 28, &none, &why), -1);
	astra_llm_kernel_release(&none);

	/* Finding the code. */
	CHECK_INT(astra_llm_answer_code("Sure! Use shared memory.", "scale", &code, &why), -1);
	CHECK(strstr(why.buf, "no fenced code block") != NULL);
	astra_buf_reset(&why);
	CHECK_INT(astra_llm_answer_code("```cuda\n__global__ void scale(", "scale", &code, &why), -1);
	CHECK(strstr(why.buf, "never closed") != NULL);
	astra_buf_reset(&why);
	CHECK_INT(astra_llm_answer_code("```\nint x;\n```\n", "scale", &code, &why), -1);
	CHECK(strstr(why.buf, "no code block defines") != NULL);
	astra_buf_reset(&why);
	CHECK_INT(astra_llm_answer_code("First:\n```cuda\n__global__ void other() {}\n```\nthen\r\n"
					"~~~~ c++\r\n__global__ void scale(float *y) {}\r\n~~~~\r\nbye\n```\n",
					"scale", &code, &why), 0);
	CHECK_STR(code.buf, "__global__ void scale(float *y) {}\n");
	astra_buf_reset(&code);
	/* A fence inside the block that is shorter does not close it. */
	CHECK_INT(astra_llm_answer_code("````cuda\n__global__ void scale() {}\n```\nstill\n````\n", "scale", &code, &why), 0);
	CHECK(strstr(code.buf, "still") != NULL);
	astra_buf_reset(&code);

	/* A reasoning model's drafts in <think> do not count. */
	CHECK_INT(astra_llm_answer_code("<think>\n```cuda\n__global__ void scale(int draft) {}\n```\n</think>\n"
					"```cuda\n__global__ void scale(float *y) {}\n```\n", "scale", &code, &why), 0);
	CHECK_STR(code.buf, "__global__ void scale(float *y) {}\n");
	astra_buf_reset(&code);
	CHECK_INT(astra_llm_answer_code("<think>\n```cuda\n__global__ void scale(int draft) {}\n```\n", "scale", &code, &why), -1);
	astra_buf_reset(&why);

	/* The check. */
	CHECK(accepts(&k, "```cuda\n__device__ __forceinline__ float twice(float v) { return 2 * v; }\n"
			  "__global__ void scale(float *y, const float *__restrict__ x, float a, int n)\n"
			  "{\n#pragma unroll 4\n  for (int i = 0; i < 4; i++) y[i] = a * x[i]; // }\n}\n```\n"));
	/* Dropping __restrict__ is safe. */
	CHECK(accepts(&k, "```cuda\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```"));
	CHECK(rejects_with(&k, "```cuda\n__global__ void scale(float *__restrict__ y, const float *x, float a, int n) { }\n```",
			   "noalias"));
	CHECK(rejects_with(&k, "```cuda\n#include <cstdio>\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "#include is not allowed"));
	CHECK(rejects_with(&k, "```cuda\n#define N 4\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "`#define` is not allowed"));
	CHECK(rejects_with(&k, "```cuda\n__global__ void scale(float *y, const float *x, float a, long n) { }\n```",
			   "parameter 4 is `long n`"));
	CHECK(rejects_with(&k, "```cuda\n__global__ void scale(float *out, const float *x, float a, int n) { }\n```",
			   "parameter 1 is `float *out`"));
	CHECK(rejects_with(&k, "```cuda\n__global__ void scale(float *y, const float *x, float a) { }\n```",
			   "3 parameters, the original has 4"));
	CHECK(rejects_with(&k, "```cuda\nvoid launch(float *y) { }\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "host code is not allowed: `launch`"));
	CHECK(rejects_with(&k, "```cuda\n__host__ __device__ float h(float x) { return x; }\n"
			       "__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "`h` is a __host__ function"));
	CHECK(rejects_with(&k, "```cuda\nint main() { return 0; }\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "host code"));
	CHECK(rejects_with(&k, "```cuda\n__device__ int counter;\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "global variables are not allowed"));
	CHECK(rejects_with(&k, "```cuda\nstruct V { float a, b; };\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "type definitions"));
	CHECK(rejects_with(&k, "```cuda\n__global__ void scale(float *y, const float *x, float a, int n) { }\n"
			       "__global__ void scale2(float *y) { }\n```", "a second kernel `scale2`"));
	CHECK(rejects_with(&k, "```cuda\n__device__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "no code block defines"));
	CHECK(rejects_with(&k, "```cuda\n__device__ void scale(float *y) { }\n"
			       "__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "must stay a __global__"));
	CHECK(rejects_with(&k, "```cuda\n__global__ void scale(float *y, const float *x, float a, int n);\n```",
			   "declaration without a body"));
	CHECK(rejects_with(&k, "```cuda\ntemplate <int V>\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "must not become a template"));

	/* The launch line. */
	memset(&v, 0, sizeof(v));
	CHECK_INT(judge(&k, "```cuda\n#pragma astra launch(grid=dim3((n + 1023) / 1024, 1), block=256, shmem=256 * sizeof(float))\n"
			    "__global__ void scale(float *y, const float *x, float a, int n) { }\n```\n", &v, &why), 0);
	CHECK_STR(v.grid, "dim3((n + 1023) / 1024, 1)");
	CHECK_STR(v.block, "256");
	CHECK_STR(v.shmem, "256 * sizeof(float)");
	CHECK(v.text && astra_starts_with(v.text, "#pragma astra launch("));
	astra_llm_variant_clear(&v);
	CHECK(rejects_with(&k, "```cuda\n#pragma astra launch(grid=rows, block=256)\n"
			       "__global__ void scale(float *y, const float *x, float a, int n) { }\n```", "`rows` is not a parameter"));
	CHECK(rejects_with(&k, "```cuda\n#pragma astra launch(grid=n)\n"
			       "__global__ void scale(float *y, const float *x, float a, int n) { }\n```", "needs both grid= and block="));
	CHECK(rejects_with(&k, "```cuda\n#pragma astra launch(grid=n, grid=1, block=2)\n"
			       "__global__ void scale(float *y, const float *x, float a, int n) { }\n```", "repeated `grid`"));
	CHECK(rejects_with(&k, "```cuda\n__global__ void scale(float *y, const float *x, float a, int n) {\n"
			       "#pragma astra launch(grid=n, block=2)\n}\n```", "above the kernel"));
	CHECK(rejects_with(&k, "```cuda\n#pragma astra noalias\n"
			       "__global__ void scale(float *y, const float *x, float a, int n) { }\n```", "`#pragma astra noalias` is not allowed"));

	/* noalias lets a candidate add __restrict__. */
	k.pragma.flags |= ASTRA_PRAGMA_NOALIAS;
	CHECK(accepts(&k, "```cuda\n__global__ void scale(float *__restrict__ y, const float *__restrict__ x, float a, int n) { }\n```"));

	/* Templates: same parameters, `class` as good as `typename`, defaults free. */
	CHECK(accepts(&t, "```cuda\ntemplate <class T, int VEC>\n__global__ void add(T *out, const T *a, int n) { }\n```"));
	CHECK(rejects_with(&t, "```cuda\n__global__ void add(float *out, const float *a, int n) { }\n```", "keep its template header"));
	CHECK(rejects_with(&t, "```cuda\ntemplate <typename T, unsigned VEC>\n__global__ void add(T *out, const T *a, int n) { }\n```",
			   "template parameter 2 must stay `int VEC`"));
	CHECK(rejects_with(&t, "```cuda\ntemplate <typename T>\n__global__ void add(T *out, const T *a, int n) { }\n```",
			   "1 template parameters, the original has 2"));

	/* Hostile shapes do not crash: unbalanced brackets, stray fences, raw strings. */
	CHECK(rejects_with(&k, "```cuda\n__global__ void scale(float *y, const float *x, float a, int n) { ((( \n```", ""));
	CHECK(rejects_with(&k, "```cuda\n}}}} __global__ void scale(\n```", ""));
	CHECK(accepts(&k, "```cuda\n__global__ void scale(float *y, const float *x, float a, int n) { const char *s = R\"x(})x\"; }\n```"));

	astra_llm_kernel_release(&k);
	astra_llm_kernel_release(&t);
	astra_buf_release(&why);
	astra_buf_release(&code);
	return unit_done();
}
