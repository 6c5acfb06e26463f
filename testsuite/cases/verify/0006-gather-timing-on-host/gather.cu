/*
 * A gather judged on the host (harness-rt.cuh on testsuite/unit/rt-shim.h):
 * out[t, :] = table[ids[t], :] with int64_t ids under range(ids: 0 .. V-1),
 * as bench/wild/embedding_gather.cu.  The "kernel" faults as a GPU would
 * (an illegal address) when an index is outside the table, so every phase
 * must hand it the ids it generated, never a buffer's stale contents.
 * Version 1 is the same gather.
 */
#define ASTRA_RT_SHIM 1
#include "testsuite/unit/rt-shim.h"
#include "verify/harness-rt.cuh"

enum { NV = 2 };

static void gather(void *const *p, int tokens, int hidden, int vocab)
{
	float *out = (float *)p[0];
	const int64_t *ids = (const int64_t *)p[1];
	const float *table = (const float *)p[2];
	for (int t = 0; t < tokens; t++) {
		int64_t id = ids[t];
		if (id < 0 || id >= vocab) {
			shim_fault(cudaErrorIllegalAddress);
			return;
		}
		for (int h = 0; h < hidden; h++)
			out[(size_t)t * hidden + h] = table[(size_t)id * hidden + h];
	}
}

int main(int argc, char **argv)
{
	astra_rt::Program prog(NV);
	static const int shapes[][2] = { { 64, 48 }, { 5, 7 }, { 1, 1 } };
	const int vocab = 97;
	for (const int *s : shapes) {
		int tokens = s[0], hidden = s[1];
		astra_rt::Case c;
		c.label = "tokens=" + std::to_string(tokens) + " hidden=" + std::to_string(hidden);
		c.add<float>("out", (long long)tokens * hidden, true, false);
		c.add<int64_t>("ids", tokens, false, true);
		c.add<float>("table", (long long)vocab * hidden, false, true);
		c.range("ids", 0, vocab - 1);
		c.tolerance(nullptr, 0, 0);
		for (int v = 0; v < NV; v++)
			c.launch.push_back([=](void *const *p, cudaStream_t) { gather(p, tokens, hidden, vocab); });
		prog.add(c);
	}
	return prog.main(argc, argv);
}
