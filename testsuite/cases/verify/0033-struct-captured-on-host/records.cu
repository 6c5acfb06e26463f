/*
 * A kernel that reads an array of structs and indexes with one of their
 * fields, judged on the host (harness-rt.cuh on testsuite/unit/rt-shim.h):
 * out[t] = table[rec[t].idx] * rec[t].w, as Rodinia's streamcluster
 * (`center_table[p[tid].assign]`).  The runtime does not know struct Rec:
 * its bytes are opaque.  With captured inputs for `rec` (rec-<case>.bin,
 * written by the test), every trial of every phase must use them: random
 * bytes in `idx` send the original itself outside the table, which the
 * "kernel" reports as a GPU would (an illegal address).  Version 1 is the
 * same computation.
 */
#define ASTRA_RT_SHIM 1
#include "testsuite/unit/rt-shim.h"
#include "verify/harness-rt.cuh"

struct Rec {
	float w;
	long long idx;
};

enum { NV = 2 };

static void scaled_gather(void *const *p, int n, int vocab)
{
	float *out = (float *)p[0];
	const Rec *rec = (const Rec *)p[1];
	const float *table = (const float *)p[2];
	for (int t = 0; t < n; t++) {
		long long id = rec[t].idx;
		if (id < 0 || id >= vocab) {
			shim_fault(cudaErrorIllegalAddress);
			return;
		}
		out[t] = table[id] * rec[t].w;
	}
}

int main(int argc, char **argv)
{
	astra_rt::Program prog(NV);
	static const int sizes[] = { 64, 5 };
	const int vocab = 97;
	int ci = 0;
	for (int n : sizes) {
		astra_rt::Case c;
		c.label = "n=" + std::to_string(n);
		c.add<float>("out", n, true, false);
		c.add<Rec>("rec", n, false, true);
		c.add<float>("table", vocab, false, true);
		static std::string files[2];
		files[ci] = "rec-" + std::to_string(ci) + ".bin";
		c.data("rec", files[ci].c_str());
		ci++;
		c.tolerance(nullptr, 0, 0);
		for (int v = 0; v < NV; v++)
			c.launch.push_back([=](void *const *p, cudaStream_t) { scaled_gather(p, n, vocab); });
		prog.add(c);
	}
	return prog.main(argc, argv);
}
