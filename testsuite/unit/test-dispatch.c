/*
 * Unit tests for passes/dispatch.c: a variant set's per-launch choice
 * from a cache entry (parameters that never change are not read, the
 * instantiations of a shape are one point), the rule at and between the
 * measured shapes and outside them (log-distance; thresholds at the
 * geometric means for one parameter; a tie to the larger shape), the
 * emitted thresholds, and the regions printed for people.  The emitted
 * code itself is compiled and run by testsuite/cases/subst/0012.
 */
#include "autoconfig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cache/manifest.h"
#include "passes/dispatch.h"
#include "testsuite/unit/unit.h"

static void entry(struct astra_entry *e, const char *params, const double *values, size_t np, const int *choice,
		  size_t n, size_t nv)
{
	char *ps = xstrdup(params), *p, *save = NULL;
	size_t i;
	astra_entry_init(e);
	e->verdict = ASTRA_VERDICT_FASTER;
	for (i = 0; i < nv; i++)
		astra_entry_add_variant(e, "__global__ void k() {}\n", 23, "test");
	for (p = strtok_r(ps, ",", &save); p; p = strtok_r(NULL, ",", &save))
		astra_entry_add_param(e, p);
	for (i = 0; i < n; i++)
		astra_entry_add_point(e, "shape", &values[i * np], choice[i], NULL, NULL);
	free(ps);
}

static int choose2(const struct astra_dispatch *d, double a, double b)
{
	double v[2] = { a, b };
	return astra_dispatch_choose(d, v);
}

static int choose1(const struct astra_dispatch *d, double a)
{
	return astra_dispatch_choose(d, &a);
}

int main(void)
{
	struct astra_entry e;
	struct astra_dispatch d, d2;
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *why = "";
	static const char *const names[] = { "the original", "v1", "v2" };

	/*
	 * silu (t, d; a third parameter, eps, is the same everywhere), each
	 * shape twice (two instantiations): 2048x14336 v1, 128x11008 v1,
	 * 7x5120 v2, 1x4096 the original, 3x1001 the original.
	 */
	{
		static const double v[] = { 2048, 14336, 1e-6, 128, 11008, 1e-6, 7, 5120, 1e-6, 1, 4096, 1e-6,
					    3, 1001, 1e-6, 2048, 14336, 1e-6, 128, 11008, 1e-6, 7, 5120, 1e-6,
					    1, 4096, 1e-6, 3, 1001, 1e-6 };
		static const int c[] = { 1, 1, 2, 0, 0, 1, 1, 2, 0, 0 };
		entry(&e, "t,d,eps", v, 3, c, 10, 2);
	}
	CHECK_INT(astra_dispatch_from_entry(&d, &e, &why), 0);
	CHECK_INT(d.nr_params, 2);
	CHECK_STR(d.params[0], "t");
	CHECK_STR(d.params[1], "d");
	CHECK_INT(d.nr_points, 5);
	CHECK_INT(d.nr_versions, 3);
	/* In ascending order of values. */
	CHECK(d.values[0] == 1 && d.values[1] == 4096 && d.values[8] == 2048);
	/* At the measured shapes: their winners. */
	CHECK_INT(choose2(&d, 2048, 14336), 1);
	CHECK_INT(choose2(&d, 128, 11008), 1);
	CHECK_INT(choose2(&d, 7, 5120), 2);
	CHECK_INT(choose2(&d, 1, 4096), 0);
	CHECK_INT(choose2(&d, 3, 1001), 0);
	/*
	 * Between and outside them: the nearest in log scale.  16x4096 is
	 * nearest 7x5120 (ln(16/7)^2 + ln(4096/5120)^2 = 0.73, against 1.92
	 * for 1x4096 and 5.3 for 128x11008); 2x4096 nearest 1x4096 (0.48
	 * against 1.62 for 7x5120); 1024x14336 nearest 2048x14336; a launch
	 * far beyond every measured shape, the nearest's winner; t = 0
	 * counts as 1.
	 */
	CHECK_INT(choose2(&d, 16, 4096), 2);
	CHECK_INT(choose2(&d, 2, 4096), 0);
	CHECK_INT(choose2(&d, 5, 5000), 2);
	CHECK_INT(choose2(&d, 1024, 14336), 1);
	CHECK_INT(choose2(&d, 65536, 8192), 1);
	CHECK_INT(choose2(&d, 0, 4096), 0);
	CHECK_INT(choose2(&d, -5, 4096), 0);
	CHECK_INT(choose2(&d, NAN, NAN), 0); /* counts as 1 x 1: nearest 1x4096 */
	/*
	 * Not the linear distance, which the larger parameter would decide:
	 * 3x11008 is linearly nearest 128x11008 (v1), in log scale 7x5120 (v2).
	 */
	CHECK_INT(choose2(&d, 3, 11008), 2);
	/* The emitted function reads the two parameters and finds the nearest point. */
	CHECK_INT(astra_dispatch_emit(&d, "__astra_choose_silu", &b), 0);
	CHECK(strstr(b.buf, "static inline int __astra_choose_silu(double __astra_x0, double __astra_x1)\n{\n"));
	CHECK(strstr(b.buf, "static const double __astra_pt[5][2] = {\n\t\t{ 0.0, 8.317766166719343"));
	CHECK(strstr(b.buf, "static const int __astra_w[5] = { 0, 0, 2, 1, 1 };"));
	CHECK(strstr(b.buf, "::log(__astra_x0 > 1.0 ? __astra_x0 : 1.0)"));
	CHECK(strstr(b.buf, "if (__astra_d <= __astra_bd) {"));
	astra_buf_reset(&b);
	astra_dispatch_describe(&d, names, &b);
	CHECK_STR(b.buf, "  the nearest measured shape in log scale of t, d:\n"
			 "    t=1 d=4096: the original\n"
			 "    t=3 d=1001: the original\n"
			 "    t=7 d=5120: v2\n"
			 "    t=128 d=11008: v1\n"
			 "    t=2048 d=14336: v1\n");
	/* The same choice from another entry with the same shapes: equal; another choice: not. */
	CHECK_INT(astra_dispatch_from_entry(&d2, &e, &why), 0);
	CHECK(astra_dispatch_equal(&d, &d2));
	d2.choice[2] = 1;
	CHECK(!astra_dispatch_equal(&d, &d2));
	astra_dispatch_release(&d2);
	astra_dispatch_release(&d);
	astra_entry_release(&e);

	/*
	 * rowsum (rows; cols fixed): 1 and 8 the original, 512 v1, 65536 v2.
	 * Thresholds at the geometric means sqrt(8 * 512) = 64 and
	 * sqrt(512 * 65536) = 5792.6; a launch at exactly 64 goes to the
	 * larger side.
	 */
	{
		static const double v[] = { 1, 4096, 8, 4096, 512, 4096, 65536, 4096 };
		static const int c[] = { 0, 0, 1, 2 };
		entry(&e, "rows,cols", v, 2, c, 4, 2);
	}
	CHECK_INT(astra_dispatch_from_entry(&d, &e, &why), 0);
	CHECK_INT(d.nr_params, 1);
	CHECK_STR(d.params[0], "rows");
	CHECK_INT(choose1(&d, 1), 0);
	CHECK_INT(choose1(&d, 0), 0);
	CHECK_INT(choose1(&d, 63), 0);
	CHECK_INT(choose1(&d, 63.999), 0);
	CHECK_INT(choose1(&d, 64), 1);
	CHECK_INT(choose1(&d, 5792), 1);
	CHECK_INT(choose1(&d, 5793), 2);
	CHECK_INT(choose1(&d, 1e9), 2);
	astra_buf_reset(&b);
	CHECK_INT(astra_dispatch_emit(&d, "__astra_choose_rowsum", &b), 0);
	CHECK_STR(b.buf, "/* astra-cc: the version of each launch (0: the original), from the nearest measured shape "
			 "in log scale of rows (passes/dispatch.h) */\n"
			 "static inline int __astra_choose_rowsum(double __astra_x0)\n{\n"
			 "\t/* measured: 1.0->0 8.0->0 512.0->1 65536.0->2 */\n"
			 "\tif (__astra_x0 < 64.0)\n\t\treturn 0;\n"
			 "\tif (__astra_x0 < 5792.6187514801977)\n\t\treturn 1;\n"
			 "\treturn 2;\n}\n");
	astra_buf_reset(&b);
	astra_dispatch_describe(&d, names, &b);
	CHECK_STR(b.buf, "  rows < 64: the original\n  64 <= rows < 5792.62: v1\n  5792.62 <= rows: v2\n");
	astra_dispatch_release(&d);
	astra_entry_release(&e);

	/* Values below 1 count as 1: 0 and 1 are one group, the larger's (1's) choice. */
	{
		static const double v[] = { 0, 1, 100 };
		static const int c[] = { 1, 0, 1 };
		entry(&e, "n", v, 1, c, 3, 1);
	}
	CHECK_INT(astra_dispatch_from_entry(&d, &e, &why), 0);
	CHECK_INT(choose1(&d, 0), 0);
	CHECK_INT(choose1(&d, 9.9), 0);
	CHECK_INT(choose1(&d, 10), 1);
	astra_dispatch_release(&d);
	astra_entry_release(&e);

	/* Not a variant set, or an inconsistent one: refused. */
	astra_entry_init(&e);
	CHECK_INT(astra_dispatch_from_entry(&d, &e, &why), -1);
	astra_entry_release(&e);
	{
		static const double v[] = { 1, 1 };
		static const int c[] = { 0, 1 };
		entry(&e, "n", v, 1, c, 2, 1);
	}
	CHECK_INT(astra_dispatch_from_entry(&d, &e, &why), -1);
	CHECK(strstr(why, "cannot tell apart") != NULL);
	astra_entry_release(&e);

	astra_buf_release(&b);
	return unit_done();
}
