/*
 * The test program's runtime, run on the host: harness-rt.cuh with the CUDA
 * runtime replaced by testsuite/unit/rt-shim.h and the kernels replaced by
 * host lambdas, one per realistic mistake.  Version 0 is the reference:
 *   res[i] += x[i]; out[i] = 2 * res[i]; flag[i] = x[i] > 0 for even i.
 */
#define ASTRA_RT_SHIM 1
#include "testsuite/unit/rt-shim.h"
#include "verify/harness-rt.cuh"

#include <map>

enum { NV = 19 };

static void body(int v, void *const *p, int n)
{
	float *out = (float *)p[0], *res = (float *)p[1];
	const float *x = (const float *)p[2];
	int *flag = (int *)p[3];
	int lim = n;
	if (v == 4)
		lim = n / 2;                       /* writes only part of the output */
	if (v == 17)
		lim = 1000;                        /* hard-codes the first shape */
	if (v == 5)
		return;                            /* leaves the outputs untouched */
	if (v == 13 && ((uintptr_t)x & 15)) {
		shim_fault(cudaErrorMisalignedAddress); /* vector loads on a misaligned pointer */
		return;
	}
	if (v == 14) {
		shim_hang();
		return;
	}
	if (v == 15) {
		shim_launch_error(cudaErrorInvalidConfiguration);
		return;
	}
	if (v == 16) {
		shim_fault(cudaErrorIllegalAddress);
		return;
	}
	if (v == 11) {
		/* Keeps its last results by input pointer and returns them again. */
		static const void *last;
		static std::vector<float> keep_out, keep_res;
		static std::vector<int> keep_flag;
		if (last == x && (int)keep_out.size() == n) {
			memcpy(out, keep_out.data(), n * 4);
			memcpy(res, keep_res.data(), n * 4);
			for (int i = 0; i < n; i += 2)
				flag[i] = keep_flag[i];
			return;
		}
		last = x;
		keep_out.assign(n, 0);
		keep_res.assign(n, 0);
		keep_flag.assign(n, 0);
		for (int i = 0; i < n; i++) {
			res[i] += x[i];
			out[i] = 2 * res[i];
			if (i % 2 == 0)
				flag[i] = x[i] > 0;
			keep_out[i] = out[i];
			keep_res[i] = res[i];
			keep_flag[i] = flag[i];
		}
		return;
	}
	for (int i = 0; i < lim; i++) {
		float r = res[i] + x[i];
		if (v != 3)
			res[i] = r;                /* 3 skips the in-place write */
		float o = 2 * r;
		if (v == 1)
			o = r + r;                 /* the same, bit for bit */
		if (v == 2)
			o = r * 2.0f * (1.0f + 1e-7f); /* within the fp32 tolerance */
		if (v == 8 && x[i] == 0.0f)
			o = NAN;                   /* NaN on some inputs */
		if (v == 9)
			o = __half2float(__float2half_rn(o)); /* precision loss */
		if (v == 10 && (rand() & 1))
			o = nextafterf(o, INFINITY);   /* differs from run to run */
		if (v == 18)
			o += 0.0f * out[i];        /* reads the output it only writes (beta = 0): NaN * 0 */
		out[i] = o;
		if (v == 6)
			((float *)x)[i] = 0;       /* uses an input as scratch */
		if (i % 2 == 0 || v == 12)
			flag[i] = x[i] > 0;        /* 12 also writes what the original leaves */
	}
	if (v == 7)
		out[n] = 1;                        /* one past the end */
}

int main(int argc, char **argv)
{
	astra_rt::Program prog(NV);
	static const int shapes[] = { 1000, 7, 1 };
	for (int n : shapes) {
		astra_rt::Case c;
		c.label = "n=" + std::to_string(n);
		c.add<float>("out", n, true, false);
		c.add<float>("res", n, true, false);
		c.add<float>("x", n, false, true);
		c.add<int>("flag", n, true, false);
		c.range("x", -4, 4);
		c.flops = 2.0 * n;
		/* What a launcher sees: arithmetic scalars are kept, others (a struct) are not. */
		c.dim("n", n);
		c.dim("scale", 0.5f);
		c.dim("opaque", std::make_pair(1, 2));
		for (int v = 0; v < NV; v++)
			c.launch.push_back([v, n](void *const *p, cudaStream_t) { body(v, p, n); });
		prog.add(c);
	}
	return prog.main(argc, argv);
}
