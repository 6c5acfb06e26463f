/*
 * Unit tests for the rules' planner: its choices given recorded
 * measurements (a fake history), and that it runs out of ideas.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/vec.h"
#include "front/extract.h"
#include "rules/planner.h"
#include "rules/rule.h"
#include "testsuite/unit/unit.h"

static const char silu[] =
	"#include <cuda_fp16.h>\n"
	"#pragma astra shapes(tokens=64, d=4096) shapes(tokens=3, d=1001)\n"
	"#pragma astra buffers(out[tokens * d], in[tokens * 2 * d])\n"
	"#pragma astra outputs(out)\n"
	"#pragma astra launch(grid=(tokens * d + 255) / 256, block=256)\n"
	"#pragma astra types(T=__half)\n"
	"#pragma astra noalias\n"
	"template <typename T>\n"
	"__global__ void silu(T *out, const T *in, int tokens, int d)\n"
	"{\n"
	"	int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"	if (i >= tokens * d)\n"
	"		return;\n"
	"	int t = i / d;\n"
	"	int j = i % d;\n"
	"	float g = (float)in[t * 2 * d + j];\n"
	"	float u = (float)in[t * 2 * d + d + j];\n"
	"	out[i] = (T)(g / (1.0f + expf(-g)) * u);\n"
	"}\n";

static int contains_step(const char *steps, const char *step)
{
	struct astra_vec v = ASTRA_VEC_INIT;
	const char *p = steps;
	int r;
	while (*p) {
		size_t n = strcspn(p, ",");
		char *s = xstrndup(p, n);
		astra_vec_push(&v, s);
		free(s);
		p += n;
		if (*p)
			p++;
	}
	r = astra_vec_find(&v, step) >= 0;
	astra_vec_clear(&v);
	return r;
}

static int count_steps(const char *steps)
{
	int n = *steps ? 1 : 0;
	for (; *steps; steps++)
		n += *steps == ',';
	return n;
}

int main(void)
{
	struct astra_tu tu;
	const struct astra_kernel *k;
	struct astra_vec r0 = ASTRA_VEC_INIT, r1 = ASTRA_VEC_INIT, r2 = ASTRA_VEC_INIT;
	struct astra_rules_try tries[256];
	size_t nt = 0, i, j;
	char *n, *nofast = NULL;
	int rounds;

	memset(&tu, 0, sizeof(tu));
	if (astra_extract_text(&tu, "silu.cu", silu, strlen(silu), NULL) < 0 || tu.nr_kernels != 1)
		return 99;
	k = &tu.kernels[0];

	/* spelling */
	n = astra_rules_normalize("fastmath, elems-per-thread,restrict,fastmath");
	CHECK_STR(n, "elems-per-thread,fastmath,restrict");
	free(n);

	/* round 0: the full pipeline first, then without fast math, then single rules */
	CHECK(astra_rules_plan(k, 90, NULL, 0, 16, &r0) >= 4);
	CHECK(contains_step(r0.v[0], "elems-per-thread") && contains_step(r0.v[0], "fastmath") &&
	      contains_step(r0.v[0], "restrict") && contains_step(r0.v[0], "launch-bounds"));
	{
		/* the same pipeline without fast math comes too */
		struct astra_buf b = ASTRA_BUF_INIT;
		const char *p = r0.v[0];
		while (*p) {
			size_t len = strcspn(p, ",");
			if (!(len == 8 && !strncmp(p, "fastmath", 8)))
				astra_buf_addf(&b, "%s%.*s", b.len ? "," : "", (int)len, p);
			p += len;
			if (*p)
				p++;
		}
		nofast = astra_buf_detach(&b, NULL);
		CHECK(astra_vec_find(&r0, nofast) >= 0);
	}
	CHECK(astra_vec_find(&r0, "elems-per-thread") >= 0);
	CHECK(astra_vec_find(&r0, "fastmath") >= 0);
	CHECK(astra_vec_find(&r0, "vectorize") < 0); /* does not apply to this kernel */
	for (i = 0; i < r0.nr; i++)
		for (j = i + 1; j < r0.nr; j++)
			CHECK(strcmp(r0.v[i], r0.v[j]));
	/* max is respected */
	{
		struct astra_vec two = ASTRA_VEC_INIT;
		CHECK_INT(astra_rules_plan(k, 90, NULL, 0, 2, &two), 2);
		CHECK_STR(two.v[0], r0.v[0]);
		astra_vec_clear(&two);
	}

	/*
	 * Recorded measurements: fast math broke the verification wherever it
	 * was tried; the pipeline without it is the best at 1.7x.
	 */
	for (i = 0; i < r0.nr; i++) {
		tries[nt].steps = r0.v[i];
		tries[nt].ok = !contains_step(r0.v[i], "fastmath");
		tries[nt].speedup = !tries[nt].ok ? 0 :
				    !strcmp(r0.v[i], nofast) ? 1.7 :
				    contains_step(r0.v[i], "elems-per-thread") ? 1.5 : 1.0;
		tries[nt].text = NULL;
		nt++;
	}
	astra_rules_plan(k, 90, tries, nt, 16, &r1);
	CHECK(r1.nr > 0);
	for (i = 0; i < r1.nr; i++) {
		CHECK(!contains_step(r1.v[i], "fastmath"));  /* dropped: it made candidates fail */
		CHECK(astra_vec_find(&r0, r1.v[i]) < 0);     /* nothing twice */
	}
	/* it builds on the best: each idea is within one rule of it */
	for (i = 0; i < r1.nr; i++) {
		int diff = count_steps(r1.v[i]) - count_steps(nofast);
		CHECK(diff >= -1 && diff <= 1);
	}

	/* A history where fast math passed: the best gets refined, not restarted. */
	nt = 0;
	for (i = 0; i < r0.nr; i++) {
		tries[nt].steps = r0.v[i];
		tries[nt].ok = 1;
		tries[nt].speedup = i == 0 ? 1.9 : 1.1;
		tries[nt].text = NULL;
		nt++;
	}
	astra_rules_plan(k, 90, tries, nt, 16, &r2);
	for (i = 0; i < r2.nr; i++) {
		int common = 0;
		const char *best = r0.v[0];
		CHECK(astra_vec_find(&r0, r2.v[i]) < 0);
		/* within one step of the best */
		common = count_steps(r2.v[i]) - count_steps(best);
		CHECK(common >= -1 && common <= 1);
	}

	/* Feeding every proposal back, the planner runs out of ideas. */
	for (rounds = 0; rounds < 40; rounds++) {
		struct astra_vec rn = ASTRA_VEC_INIT;
		size_t got = astra_rules_plan(k, 90, tries, nt, 8, &rn);
		if (!got) {
			astra_vec_clear(&rn);
			break;
		}
		for (i = 0; i < rn.nr && nt < ARRAY_SIZE(tries); i++) {
			tries[nt].steps = xstrdup(rn.v[i]);
			tries[nt].ok = 1;
			tries[nt].speedup = 1.0;
			tries[nt].text = NULL;
			nt++;
		}
		astra_vec_clear(&rn);
	}
	CHECK(rounds < 40);
	printf("ran out of ideas after %d more rounds, %zu candidates in all\n", rounds, nt);
	for (i = r0.nr; i < nt; i++)
		free((char *)tries[i].steps);

	free(nofast);
	astra_vec_clear(&r0);
	astra_vec_clear(&r1);
	astra_vec_clear(&r2);
	astra_tu_release(&tu);
	return unit_done();
}
