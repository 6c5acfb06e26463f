/* Unit tests for front/key.c: digests and the target list of a command. */
#include "autoconfig.h"

#include <stdlib.h>

#include "lib/arch.h"
#include "lib/vec.h"
#include "front/key.h"
#include "testsuite/unit/unit.h"

/* The key targets of an nvcc command line given as one string. */
static char *archs(const char *cmd)
{
	struct astra_vec argv = ASTRA_VEC_INIT, out = ASTRA_VEC_INIT;
	struct astra_cmdline cl;
	char *s;
	size_t i;
	astra_vec_push(&argv, "nvcc");
	astra_vec_split_shell(&argv, cmd);
	astra_cmdline_parse(&cl, (int)argv.nr, argv.v);
	if (astra_arch_targets(&cl, &out) < 0) {
		s = xstrdup("unknown");
	} else {
		struct astra_buf b = ASTRA_BUF_INIT;
		for (i = 0; i < out.nr; i++)
			astra_buf_addf(&b, "%s%s", i ? " " : "", out.v[i]);
		s = astra_buf_detach(&b, NULL);
	}
	astra_cmdline_release(&cl);
	astra_vec_clear(&argv);
	astra_vec_clear(&out);
	return s;
}

/* The compute capabilities of every device pass, as "80 90", or "unknown". */
static char *device_ccs(const char *cmd)
{
	struct astra_vec argv = ASTRA_VEC_INIT;
	struct astra_cmdline cl;
	int ccs[4];
	size_t nr, i;
	char *s;
	astra_vec_push(&argv, "nvcc");
	astra_vec_split_shell(&argv, cmd);
	astra_cmdline_parse(&cl, (int)argv.nr, argv.v);
	if (astra_arch_device_ccs(&cl, ccs, ARRAY_SIZE(ccs), &nr) < 0) {
		s = xstrdup("unknown");
	} else {
		struct astra_buf b = ASTRA_BUF_INIT;
		for (i = 0; i < nr; i++)
			astra_buf_addf(&b, "%s%d", i ? " " : "", ccs[i]);
		s = astra_buf_detach(&b, NULL);
	}
	astra_cmdline_release(&cl);
	astra_vec_clear(&argv);
	return s;
}

#define CCS(cmd, want)                         \
	do {                                   \
		char *got_ = device_ccs(cmd);  \
		CHECK_STR(got_, want);         \
		free(got_);                    \
	} while (0)

#define ARCHS(cmd, want)                     \
	do {                                 \
		char *got_ = archs(cmd);     \
		CHECK_STR(got_, want);       \
		free(got_);                  \
	} while (0)

int main(void)
{
	struct astra_key a, b;

	/* Known-answer: XXH3-128 of "" and of "abc" (canonical byte order). */
	astra_key_digest("", 0, &a);
	CHECK_STR(a.hex, "99aa06d3014798d86001c324468d497f");
	astra_key_digest("abc", 3, &a);
	CHECK_STR(a.hex, "06b05ab6733a618578af5f94892f3950");
	astra_key_digest("abd", 3, &b);
	CHECK(strcmp(a.hex, b.hex) != 0);
	CHECK_INT(strlen(a.hex), 32);

	ARCHS("-c k.cu", "default");
	ARCHS("-c k.cu -arch=sm_90", "sm_90");
	ARCHS("-c k.cu -arch sm_90a", "sm_90a");
	ARCHS("-c k.cu --gpu-architecture=compute_80", "compute_80");
	ARCHS("-c k.cu -arch=compute_80 -code=sm_80,sm_86", "sm_80 sm_86");
	ARCHS("-c k.cu -gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=[sm_90,compute_90]",
	      "sm_80 sm_90");
	ARCHS("-c k.cu --generate-code arch=sm_75", "sm_75");
	ARCHS("-c k.cu -arch=native", "unknown");
	ARCHS("-c k.cu -arch=all-major", "unknown");

	/* Device passes: the virtual architecture of a -gencode counts too. */
	CCS("-c k.cu", "unknown");
	CCS("-c k.cu -arch=sm_90", "90");
	CCS("-c k.cu -arch sm_90a", "90");
	CCS("-c k.cu -gencode arch=compute_80,code=sm_90", "80 90");
	CCS("-c k.cu -gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=[sm_90,compute_90]", "80 90");
	CCS("-c k.cu -arch=compute_90 -code=sm_90,sm_100", "90 100");
	CCS("-c k.cu -arch=native", "unknown");
	CCS("-c k.cu -arch=all", "unknown");
	CCS("-c k.cu -gencode arch=compute_50,code=sm_50 -gencode arch=compute_60,code=sm_60 "
	    "-gencode arch=compute_70,code=sm_70 -gencode arch=compute_80,code=sm_80 "
	    "-gencode arch=compute_90,code=sm_90", "unknown"); /* more than the caller's room */
	return unit_done();
}
