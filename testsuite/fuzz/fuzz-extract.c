/*
 * fuzz-extract.c - fuzz target for extraction (front/extract.c): the
 * input is a .cu file, and then a variant proposed for a fixed kernel (an
 * LLM's answer is hostile input).  libclang copes with anything; what is
 * fuzzed is astra-cc's own walk over its tokens and cursors (brace
 * matching, pragma lines, launch sites, parameter types, the checks on
 * variants).  Built with libFuzzer (--enable-fuzzers) or with driver.c.
 */
#include "autoconfig.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "front/key.h"
#include "front/extract.h"
#include "ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char original[] =
	"#pragma astra shapes(n=8) buffers(y[n], x[n]) outputs(y) launch(grid=1, block=n) types(T=float)\n"
	"template <typename T>\n"
	"__global__ void k(T *y, const T *x, int n) { y[threadIdx.x] = x[threadIdx.x]; }\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct astra_tu orig;
	static int have_orig;
	struct astra_tu tu;
	struct astra_variant v;
	struct astra_candidate c;
	struct astra_buf why = ASTRA_BUF_INIT;
	size_t i;

	if (!have_orig) {
		memset(&orig, 0, sizeof(orig));
		if (astra_extract_text(&orig, "orig.cu", original, sizeof(original) - 1, NULL) < 0 ||
		    orig.nr_kernels != 1)
			abort();
		have_orig = 1;
	}
	if (size > 1 << 16)
		return 0;

	/* As a file (no project headers: the name has no directory to look in). */
	memset(&tu, 0, sizeof(tu));
	if (astra_extract_text(&tu, "fuzz-input.cu", (const char *)data, size, NULL) == 0) {
		for (i = 0; i < tu.nr_kernels; i++) {
			struct astra_key key;
			const struct astra_kernel *k = &tu.kernels[i];
			if (k->start > k->end || k->end > tu.len || k->body_start < k->start || k->body_start > k->end)
				abort();
			if (memcmp(k->text, tu.text + k->start, k->end - k->start))
				abort();
			astra_key_compute(&tu, k, NULL, "sm_90", "nvcc", &key, NULL);
			{
				/* the lifter reads the same code: it lifts or says why, never crashes */
				struct astra_ir ir;
				struct astra_buf out = ASTRA_BUF_INIT;
				if (astra_ir_lift(k, &ir, &out) == 0)
					astra_ir_print(&ir, &out);
				else if (!out.len)
					abort();
				astra_ir_release(&ir);
				astra_buf_release(&out);
			}
		}
		for (i = 0; i < tu.nr_launches; i++)
			if (tu.launches[i].start > tu.launches[i].end || tu.launches[i].end > tu.len)
				abort();
	}
	astra_tu_release(&tu);

	/* As a variant of k. */
	memset(&v, 0, sizeof(v));
	memset(&c, 0, sizeof(c));
	v.text = malloc(size + 1);
	if (!v.text)
		return 0;
	memcpy(v.text, data, size);
	v.text[size] = '\0';
	if (astra_extract_candidate(&orig.kernels[0], &v, &c, &why) == 0) {
		if (strcmp(c.kernel.name, "k") || c.kernel.nr_params != 3)
			abort();
		astra_candidate_release(&c);
	}
	astra_buf_release(&why);
	astra_variant_release(&v);
	return 0;
}
