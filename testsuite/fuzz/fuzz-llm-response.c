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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char kernel_text[] =
	"#pragma astra optimize\n"
	"#pragma astra noalias\n"
	"template <typename T, int VEC>\n"
	"__global__ void __launch_bounds__(256) scale(T *y, const T *__restrict__ x, float a, int n)\n"
	"{ }\n";

static void judge(const struct astra_kernel *k, const char *answer)
{
	struct astra_buf code = ASTRA_BUF_INIT, why = ASTRA_BUF_INIT;
	struct astra_variant v;
	if (astra_llm_answer_code(answer, k->name, &code, &why) == 0 &&
	    astra_llm_check_candidate(k, code.buf, &v, &why) == 0)
		astra_llm_variant_clear(&v);
	astra_buf_release(&code);
	astra_buf_release(&why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct astra_kernel k;
	static int ready;
	struct astra_chat_answer a;
	struct astra_buf why = ASTRA_BUF_INIT, text = ASTRA_BUF_INIT;
	struct astra_variant v;
	char *s;

	if (!ready) {
		if (astra_llm_scan_kernel("f.cu", kernel_text, strlen(kernel_text), &k, &why) < 0)
			abort();
		astra_buf_reset(&why);
		ready = 1;
	}
	if (astra_provider_openai.parse((const char *)data, size, &a, &why) == 0) {
		judge(&k, a.content);
		astra_chat_answer_release(&a);
	}
	astra_buf_reset(&why);
	astra_provider_openai.describe_error((const char *)data, size, &why);
	astra_buf_release(&why);

	s = xstrndup((const char *)data, size);
	judge(&k, s);
	/* The check on the raw text too, as if it were the block. */
	if (astra_llm_check_candidate(&k, s, &v, &why) == 0)
		astra_llm_variant_clear(&v);
	astra_buf_release(&why);
	astra_buf_add(&text, data, size);
	astra_llm_redact(&text, "sk-fuzz-secret-key");
	astra_buf_release(&text);
	free(s);
	return 0;
}
