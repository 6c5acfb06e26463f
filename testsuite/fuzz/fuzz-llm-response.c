/*
 * fuzz-llm-response.c - libFuzzer target for everything astra-cc does with
 * a chat server's response: the provider's JSON parsing, finding the code
 * block in the answer, the candidate check against a kernel, and the
 * redaction of the text.  The input is used both as a whole HTTP body and
 * as the answer's content, since random bytes rarely make valid JSON.
 *
 * Build with --enable-fuzzers and CC=clang for libFuzzer; otherwise it links
 * with testsuite/fuzz/driver.c, and testsuite/cases/fuzz/0002-llm-response
 * runs it for a bounded time in `make check`.
 */
#include "autoconfig.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agents/llm-answer.h"
#include "agents/llm.h"
#include "agents/provider.h"
#include "front/extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char kernel_text[] =
	"#pragma astra shapes(n=100) buffers(y[n], x[n]) outputs(y) scalars(a=2) types(T=float)\n"
	"#pragma astra launch(grid=(n + 255) / 256, block=256) tune(VEC: 1 2 4)\n"
	"#pragma astra noalias\n"
	"template <typename T, int VEC>\n"
	"__global__ void __launch_bounds__(256) scale(T *y, const T *__restrict__ x, float a, int n)\n"
	"{ }\n";

/*
 * The gate parses with libclang (tens of milliseconds), everything else
 * takes microseconds: the gate sees one input in eight, chosen by content
 * so that an input always takes the same path.
 */
static int through_gate(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u;
	size_t i;
	for (i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return (h & 7) == 0;
}

static void judge(const struct astra_kernel *k, const char *answer, int gate)
{
	struct astra_buf code = ASTRA_BUF_INIT, why = ASTRA_BUF_INIT;
	struct astra_variant v;
	if (astra_llm_answer_code(answer, k->name, &code, &why) == 0 && gate &&
	    astra_llm_check_candidate(k, code.buf, &v, &why) == 0)
		astra_variant_release(&v);
	astra_buf_release(&code);
	astra_buf_release(&why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct astra_tu tu;
	static const struct astra_kernel *k;
	struct astra_chat_answer a;
	struct astra_buf why = ASTRA_BUF_INIT, text = ASTRA_BUF_INIT;
	struct astra_variant v;
	int gate = through_gate(data, size);
	char *s;

	if (!k) {
		if (astra_extract_text(&tu, "f.cu", kernel_text, strlen(kernel_text), NULL) < 0 || !tu.nr_kernels)
			abort();
		k = &tu.kernels[0];
	}
	if (astra_provider_openai.parse((const char *)data, size, &a, &why) == 0) {
		judge(k, a.content, gate);
		astra_chat_answer_release(&a);
	}
	astra_buf_reset(&why);
	astra_provider_openai.describe_error((const char *)data, size, &why);
	astra_buf_release(&why);

	s = xstrndup((const char *)data, size);
	judge(k, s, gate);
	/* The check on the raw text too, as if it were the block. */
	if (gate && astra_llm_check_candidate(k, s, &v, &why) == 0)
		astra_variant_release(&v);
	astra_buf_release(&why);
	astra_buf_add(&text, data, size);
	astra_llm_redact(&text, "sk-fuzz-secret-key");
	astra_buf_release(&text);
	free(s);
	return 0;
}
