/* Unit tests for llm-answer.c: code blocks in answers, the candidate gate. */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "agents/llm-answer.h"
#include "front/extract.h"
#include "testsuite/unit/unit.h"

static const char original[] =
	"#include <cuda_runtime.h>\n"
	"__device__ float helper(float x) { return x; }\n"
	"#pragma astra shapes(n=1000) buffers(y[n], x[n]) outputs(y) scalars(a=2)\n"
	"#pragma astra launch(grid=(n+255)/256, block=256)\n"
	"__global__ void scale(float *y, const float *__restrict__ x, float a, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n) y[i] = a * x[i];\n"
	"}\n";

/* 0 when answer yields code that passes the gate; why gets the reason. */
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
	int r = judge(k, answer, &v, &why);
	int ok = r < 0 && strstr(why.buf, words) && !v.text && why.len && why.buf[why.len - 1] != '\n';
	if (!ok)
		fprintf(stderr, "answer:\n%s\nwhy: %s\n(expected a rejection mentioning \"%s\")\n", answer, why.buf, words);
	astra_variant_release(&v);
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
	astra_variant_release(&v);
	astra_buf_release(&why);
	return ok;
}

int main(void)
{
	struct astra_tu tu;
	const struct astra_kernel *k;
	struct astra_buf why = ASTRA_BUF_INIT, code = ASTRA_BUF_INIT;
	struct astra_variant v;

	memset(&tu, 0, sizeof(tu));
	CHECK_INT(astra_extract_text(&tu, "k.cu", original, strlen(original), NULL), 0);
	CHECK_INT(tu.nr_kernels, 1);
	if (tu.nr_kernels != 1)
		return unit_done();
	k = &tu.kernels[0];

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
	/* The block with the kernel wins over others; CRLF and ~~~ fences are fine. */
	CHECK_INT(astra_llm_answer_code("First:\n```cuda\n__global__ void other() {}\n```\nthen\r\n"
					"~~~~ c++\r\n__global__ void scale(float *y) {}\r\n~~~~\r\nbye\n```\n",
					"scale", &code, &why), 0);
	CHECK_STR(code.buf, "__global__ void scale(float *y) {}\n");
	astra_buf_reset(&code);
	/* Names are whole words: scale2 is not scale. */
	CHECK_INT(astra_llm_answer_code("```\n__global__ void scale2(float *y) {}\n```\n"
					"```\n__global__ void\nscale (float *y) {}\n```\n", "scale", &code, &why), 0);
	CHECK_STR(code.buf, "__global__ void\nscale (float *y) {}\n");
	astra_buf_reset(&code);
	/* Only the other kernel: still the block to judge (the gate says why). */
	CHECK_INT(astra_llm_answer_code("```\n__global__ void scale2(float *y) {}\n```\n", "scale", &code, &why), 0);
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

	/* The gate (astra_extract_candidate), through the answer. */
	CHECK(accepts(k, "```cuda\n__device__ __forceinline__ float twice(float v) { return 2 * v; }\n"
			 "__global__ void scale(float *y, const float *__restrict__ x, float a, int n)\n"
			 "{\n#pragma unroll 4\n  for (int i = 0; i < 4; i++) y[i] = a * x[i] + helper(0.f); // }\n}\n```\n"));
	CHECK(rejects_with(k, "```cuda\n#include <cstdio>\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "#include"));
	CHECK(rejects_with(k, "```cuda\n__global__ void scale(float4 *y, const float *x, float a, int n) { }\n```", "y"));
	CHECK(rejects_with(k, "```cuda\nvoid launch(float *y) { }\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "host"));
	CHECK(rejects_with(k, "```cuda\n__device__ int counter;\n__global__ void scale(float *y, const float *x, float a, int n) { }\n```",
			   "variable"));
	memset(&v, 0, sizeof(v));
	CHECK_INT(judge(k, "```cuda\n#pragma astra launch(grid=(n + 1023) / 1024, block=256)\n"
			   "__global__ void scale(float *y, const float *x, float a, int n) { }\n```\n", &v, &why), 0);
	CHECK_STR(v.grid, "(n + 1023) / 1024");
	CHECK_STR(v.block, "256");
	CHECK(v.text && astra_starts_with(v.text, "#pragma astra launch("));
	astra_variant_release(&v);

	astra_tu_release(&tu);
	astra_buf_release(&why);
	astra_buf_release(&code);
	return unit_done();
}
