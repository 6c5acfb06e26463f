/* Unit tests for the nvcc command-line model (nvccopts.c). */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/arch.h"
#include "lib/nvccopts.h"
#include "testsuite/unit/unit.h"

static struct astra_cmdline cl;

static void parse(const char *line)
{
	struct astra_vec v = ASTRA_VEC_INIT;
	astra_vec_push(&v, "nvcc");
	astra_vec_split_shell(&v, line);
	astra_cmdline_release(&cl);
	astra_cmdline_parse(&cl, (int)v.nr, v.v);
	astra_vec_clear(&v);
}

static int has(const struct astra_vec *v, const char *s)
{
	return astra_vec_find(v, s) >= 0;
}

int main(void)
{
	FILE *f;

	/* The rewritable case, options in every spelling. */
	parse("-c k.cu -o k.o -Xcompiler=-fPIC -ccbin=/usr/bin/g++ -gencode arch=compute_90,code=sm_90 "
	      "--generate-code=arch=compute_80,code=[sm_80,compute_80] -Werror all-warnings -DX=1 -D Y "
	      "--define-macro=Z -I inc -Iinc2 -std=c++17 -O3 -MD -MF k.d -MT k.o");
	CHECK(cl.reason == NULL);
	CHECK_INT(cl.phase, PHASE_COMPILE);
	CHECK_INT(cl.inputs.nr, 1);
	CHECK_STR(cl.inputs.v[0], "k.cu");
	CHECK_INT(cl.input_argi, 1);
	CHECK_STR(cl.output, "k.o");
	CHECK(cl.deps);
	CHECK_STR(cl.dep_file, "k.d");
	CHECK(has(&cl.archs, "sm_90"));
	CHECK(has(&cl.archs, "sm_80"));
	CHECK(has(&cl.archs, "compute_80"));
	CHECK(has(&cl.device_flags, "--define-macro=X=1"));
	CHECK(has(&cl.device_flags, "--define-macro=Y"));
	CHECK(has(&cl.device_flags, "--define-macro=Z"));
	CHECK(has(&cl.device_flags, "--std=c++17"));
	CHECK(has(&cl.device_flags, "--compiler-options=-fPIC"));
	/* all-warnings is -Werror's value, not an input */
	CHECK(!has(&cl.inputs, "all-warnings"));
	CHECK(has(&cl.preproc_flags, "inc2"));

	parse("-dc a.cu -arch=sm_90a");
	CHECK(cl.reason == NULL);
	CHECK_INT(cl.phase, PHASE_DC);
	CHECK(has(&cl.archs, "sm_90a"));
	CHECK(has(&cl.archs, "compute_90"));

	/* Modes never touched. */
	parse("a.o b.o -o app");
	CHECK(cl.reason != NULL);
	parse("-dlink a.o -o dl.o");
	CHECK(cl.reason != NULL);
	parse("-E a.cu");
	CHECK(cl.reason != NULL);
	parse("-M a.cu");
	CHECK(cl.reason != NULL);
	parse("-MM a.cu");
	CHECK(cl.reason != NULL);
	parse("-c a.cu --dryrun");
	CHECK(cl.reason != NULL);
	CHECK(cl.dryrun);
	parse("-ptx a.cu");
	CHECK(cl.reason != NULL);
	parse("-cubin a.cu");
	CHECK(cl.reason != NULL);
	parse("-fatbin a.cu");
	CHECK(cl.reason != NULL);
	parse("-c a.cu b.cu");
	CHECK(cl.reason != NULL);
	parse("--version");
	CHECK(cl.reason != NULL);
	CHECK(cl.version);
	parse("-c a.cpp");
	CHECK(cl.reason != NULL);
	parse("-c -x cu a.cpp");
	CHECK(cl.reason == NULL);
	parse("-c a.cu -o");
	CHECK(cl.reason != NULL);

	/* -v is allowed in a compile (CMake's identification uses it). */
	parse("-v -c a.cu");
	CHECK(cl.reason == NULL);
	CHECK(cl.verbose);

	/* Unknown options pass, and are remembered. */
	parse("-c a.cu --frobnicate");
	CHECK(cl.reason == NULL);
	CHECK(has(&cl.unknown, "--frobnicate"));

	/* Options files are expanded for the analysis only. */
	f = fopen("test-nvccopts.optf", "w");
	CHECK(f != NULL);
	if (f) {
		fputs("-DFROM_FILE -I \"dir with space\"\n-arch=sm_75\n", f);
		fclose(f);
	}
	parse("-c a.cu --options-file test-nvccopts.optf");
	CHECK(cl.reason == NULL);
	CHECK(has(&cl.device_flags, "--define-macro=FROM_FILE"));
	CHECK(has(&cl.preproc_flags, "dir with space"));
	CHECK(has(&cl.archs, "sm_75"));
	CHECK(!has(&cl.args, "-DFROM_FILE"));
	/* An input inside an options file cannot be replaced. */
	f = fopen("test-nvccopts.optf", "w");
	if (f) {
		fputs("-c a.cu\n", f);
		fclose(f);
	}
	parse("-optf test-nvccopts.optf");
	CHECK(cl.reason != NULL);
	unlink("test-nvccopts.optf");
	parse("-c a.cu --options-file does-not-exist.optf");
	CHECK(cl.reason != NULL);

	/* NVCC_PREPEND_FLAGS / NVCC_APPEND_FLAGS enter the analysis. */
	setenv("NVCC_PREPEND_FLAGS", "-DPRE", 1);
	setenv("NVCC_APPEND_FLAGS", "--use_fast_math", 1);
	parse("-c a.cu");
	CHECK(has(&cl.device_flags, "--define-macro=PRE"));
	CHECK(has(&cl.device_flags, "--use_fast_math"));
	CHECK_INT(cl.input_argi, 1);
	unsetenv("NVCC_PREPEND_FLAGS");
	unsetenv("NVCC_APPEND_FLAGS");

	{
		struct astra_vec ccs = ASTRA_VEC_INIT;
		parse("-c a.cu -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90a");
		CHECK_INT(astra_arch_ccs(&cl, &ccs), 0);
		CHECK(has(&ccs, "80"));
		CHECK(has(&ccs, "90"));
		CHECK_INT(ccs.nr, 2);
		astra_vec_clear(&ccs);
		parse("-c a.cu -arch=native");
		CHECK_INT(astra_arch_ccs(&cl, &ccs), -1);
		astra_vec_clear(&ccs);
	}
	astra_cmdline_release(&cl);
	return unit_done();
}
