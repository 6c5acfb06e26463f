## testsuite/ - `make check` runs the unit tests and the case directories
## hermetically (no network, no GPU needed); `make check-gpu` runs only the
## cases that need a GPU.  Both end with "N passed, N failed[, N skipped]".

check_PROGRAMS += \
	testsuite/unit/test-buf \
	testsuite/unit/test-nvccopts \
	testsuite/unit/test-config \
	testsuite/unit/test-trust \
	testsuite/unit/test-pragma \
	testsuite/unit/test-includes \
	testsuite/unit/test-key \
	testsuite/unit/test-candidate \
	testsuite/unit/test-gate \
	testsuite/unit/test-manifest \
	testsuite/unit/test-store \
	testsuite/unit/test-sign \
	testsuite/unit/test-gpus \
	testsuite/helpers/cache-tool \
	testsuite/unit/test-rewrite \
	testsuite/unit/test-substitute \
	testsuite/unit/test-screen \
	testsuite/unit/test-harness \
	testsuite/unit/test-profile \
	testsuite/unit/test-sandbox \
	testsuite/unit/test-select \
	testsuite/unit/test-hints \
	testsuite/unit/test-loop \
	testsuite/unit/test-dispatch

check_PROGRAMS += testsuite/unit/test-rules-syntax
testsuite_unit_test_rules_syntax_SOURCES = testsuite/unit/test-rules-syntax.c testsuite/unit/unit.h
testsuite_unit_test_rules_syntax_LDADD = $(ASTRA_LIBS)
check_PROGRAMS += testsuite/unit/test-planner
testsuite_unit_test_lift_SOURCES = testsuite/unit/test-lift.c testsuite/unit/unit.h
testsuite_unit_test_lift_LDADD = $(ASTRA_LIBS)
check_PROGRAMS += testsuite/unit/test-lift
testsuite_unit_test_planner_SOURCES = testsuite/unit/test-planner.c testsuite/unit/unit.h
testsuite_unit_test_planner_LDADD = $(ASTRA_LIBS)

# A test tool (not run by itself): apply rules to a kernel of a file.
check_PROGRAMS += testsuite/unit/rules-apply
testsuite_unit_rules_apply_SOURCES = testsuite/unit/rules-apply.c
testsuite_unit_rules_apply_LDADD = $(ASTRA_LIBS)
check_PROGRAMS += \
	testsuite/unit/test-llm-answer \
	testsuite/unit/test-llm-client

testsuite_unit_test_buf_SOURCES = testsuite/unit/test-buf.c testsuite/unit/unit.h
testsuite_unit_test_buf_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_nvccopts_SOURCES = testsuite/unit/test-nvccopts.c testsuite/unit/unit.h
testsuite_unit_test_nvccopts_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_config_SOURCES = testsuite/unit/test-config.c testsuite/unit/unit.h
testsuite_unit_test_config_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_trust_SOURCES = testsuite/unit/test-trust.c testsuite/unit/unit.h
testsuite_unit_test_trust_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_pragma_SOURCES = testsuite/unit/test-pragma.c testsuite/unit/unit.h
testsuite_unit_test_pragma_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_includes_SOURCES = testsuite/unit/test-includes.c testsuite/unit/unit.h
testsuite_unit_test_includes_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_key_SOURCES = testsuite/unit/test-key.c testsuite/unit/unit.h
testsuite_unit_test_key_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_candidate_SOURCES = testsuite/unit/test-candidate.c testsuite/unit/unit.h
testsuite_unit_test_candidate_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_gate_SOURCES = testsuite/unit/test-gate.c testsuite/unit/unit.h
testsuite_unit_test_gate_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_manifest_SOURCES = testsuite/unit/test-manifest.c testsuite/unit/unit.h
testsuite_unit_test_manifest_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_store_SOURCES = testsuite/unit/test-store.c testsuite/unit/unit.h
testsuite_unit_test_store_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_sign_SOURCES = testsuite/unit/test-sign.c testsuite/unit/unit.h
testsuite_unit_test_sign_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_gpus_SOURCES = testsuite/unit/test-gpus.c testsuite/unit/unit.h
testsuite_unit_test_gpus_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_rewrite_SOURCES = testsuite/unit/test-rewrite.c testsuite/unit/unit.h
testsuite_unit_test_rewrite_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_substitute_SOURCES = testsuite/unit/test-substitute.c testsuite/unit/unit.h
testsuite_unit_test_substitute_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_screen_SOURCES = testsuite/unit/test-screen.c testsuite/unit/unit.h
testsuite_unit_test_screen_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_harness_SOURCES = testsuite/unit/test-harness.c testsuite/unit/unit.h testsuite/unit/kernel-fixture.h
testsuite_unit_test_harness_LDADD = $(ASTRA_LIBS)
check_PROGRAMS += testsuite/unit/test-report
testsuite_unit_test_report_SOURCES = testsuite/unit/test-report.c testsuite/unit/unit.h \
	testsuite/helpers/evidence-fixture.c testsuite/helpers/evidence-fixture.h
testsuite_unit_test_report_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_profile_SOURCES = testsuite/unit/test-profile.c testsuite/unit/unit.h
testsuite_unit_test_profile_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_sandbox_SOURCES = testsuite/unit/test-sandbox.c testsuite/unit/unit.h
testsuite_unit_test_sandbox_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_select_SOURCES = testsuite/unit/test-select.c testsuite/unit/unit.h
testsuite_unit_test_select_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_hints_SOURCES = testsuite/unit/test-hints.c testsuite/unit/unit.h
testsuite_unit_test_hints_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_loop_SOURCES = testsuite/unit/test-loop.c testsuite/unit/unit.h
testsuite_unit_test_loop_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_dispatch_SOURCES = testsuite/unit/test-dispatch.c testsuite/unit/unit.h
testsuite_unit_test_dispatch_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_llm_answer_SOURCES = testsuite/unit/test-llm-answer.c testsuite/unit/unit.h
testsuite_unit_test_llm_answer_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_llm_client_SOURCES = testsuite/unit/test-llm-client.c testsuite/unit/unit.h
testsuite_unit_test_llm_client_LDADD = $(ASTRA_LIBS)

# Test helpers for the LLM client: a stub chat-completions server and a
# driver that runs the "llm" optimizer's rounds (cases in testsuite/cases/llm).
check_PROGRAMS += testsuite/lib/stub-chat testsuite/lib/llm-propose
testsuite_lib_stub_chat_SOURCES = testsuite/lib/stub-chat.c
testsuite_lib_stub_chat_LDADD = $(ASTRA_LIBS)
testsuite_lib_llm_propose_SOURCES = testsuite/lib/llm-propose.c
testsuite_lib_llm_propose_LDADD = $(ASTRA_LIBS)

# Drives the cache API from the shell (testsuite/cases/cache/, bench/).
testsuite_helpers_cache_tool_SOURCES = testsuite/helpers/cache-tool.c \
	testsuite/helpers/evidence-fixture.c testsuite/helpers/evidence-fixture.h
testsuite_helpers_cache_tool_LDADD = $(ASTRA_LIBS)
# Stores a real variant as a `faster` entry (testsuite/cases/subst/, bench/subst.sh).
check_PROGRAMS += testsuite/helpers/put-variant
testsuite_helpers_put_variant_SOURCES = testsuite/helpers/put-variant.c
testsuite_helpers_put_variant_LDADD = $(ASTRA_LIBS)
# The benchmark's pragmas as C++ macros, read by front/ (bench/gen-pragmas runs it).
check_PROGRAMS += testsuite/helpers/gen-pragmas
testsuite_helpers_gen_pragmas_SOURCES = testsuite/helpers/gen-pragmas.c
testsuite_helpers_gen_pragmas_LDADD = $(ASTRA_LIBS)

EXTRA_DIST += testsuite/lib testsuite/cases testsuite/projects testsuite/fuzz/corpus testsuite/verify

## Fuzz targets: testsuite/fuzz/fuzz-NAME.c defines LLVMFuzzerTestOneInput.
## With --enable-fuzzers (CC=clang) they are libFuzzer programs; otherwise
## they link with driver.c (random and mutated seeds, no coverage), under
## ASan/UBSan where the compiler has them (FUZZ_CFLAGS, from configure).
## The case testsuite/cases/fuzz/NNNN-NAME runs each for a bounded time.
## To add a target: copy the five fuzz-pragma lines below (list the sources
## it fuzzes so that they are instrumented), put seeds in
## testsuite/fuzz/corpus/NAME/, and add a case whose cmd is
## `exec "$srcdir/testsuite/fuzz/run-fuzzer" NAME`.
check_LIBRARIES =
if ENABLE_FUZZERS
FUZZ_DRIVER =
else
check_LIBRARIES += testsuite/fuzz/libfuzzdriver.a
testsuite_fuzz_libfuzzdriver_a_SOURCES = testsuite/fuzz/driver.c
FUZZ_DRIVER = testsuite/fuzz/libfuzzdriver.a
endif
FUZZ_LDADD = $(FUZZ_DRIVER) $(ASTRA_LIBS)
EXTRA_DIST += testsuite/fuzz/corpus testsuite/fuzz/run-fuzzer

check_PROGRAMS += testsuite/fuzz/fuzz-pragma
testsuite_fuzz_fuzz_pragma_SOURCES = testsuite/fuzz/fuzz-pragma.c front/pragma.c front/pragma-clauses.c
testsuite_fuzz_fuzz_pragma_CFLAGS = $(AM_CFLAGS) $(FUZZ_CFLAGS)
testsuite_fuzz_fuzz_pragma_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_pragma_LDADD = $(FUZZ_LDADD)

check_PROGRAMS += testsuite/fuzz/fuzz-extract
testsuite_fuzz_fuzz_extract_SOURCES = testsuite/fuzz/fuzz-extract.c front/extract.c front/pragma.c front/pragma-clauses.c \
	front/includes.c front/kernel.c front/key.c
testsuite_fuzz_fuzz_extract_CFLAGS = $(AM_CFLAGS) $(FUZZ_CFLAGS)
testsuite_fuzz_fuzz_extract_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_extract_LDADD = $(FUZZ_LDADD)

check_PROGRAMS += testsuite/fuzz/fuzz-manifest
testsuite_fuzz_fuzz_manifest_SOURCES = testsuite/fuzz/fuzz-manifest.c cache/manifest.c
testsuite_fuzz_fuzz_manifest_CFLAGS = $(AM_CFLAGS) $(FUZZ_CFLAGS)
testsuite_fuzz_fuzz_manifest_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_manifest_LDADD = $(FUZZ_LDADD)
check_PROGRAMS += testsuite/fuzz/fuzz-llm-response
testsuite_fuzz_fuzz_llm_response_SOURCES = testsuite/fuzz/fuzz-llm-response.c \
	agents/llm-answer.c agents/provider-openai.c agents/llm.c
testsuite_fuzz_fuzz_llm_response_CFLAGS = $(AM_CFLAGS) $(FUZZ_CFLAGS)
testsuite_fuzz_fuzz_llm_response_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_LDFLAGS)
testsuite_fuzz_fuzz_llm_response_LDADD = $(FUZZ_LDADD)

TEST_ENV = srcdir="$(abs_top_srcdir)" builddir="$(abs_top_builddir)" \
	ASTRA_CC="$(abs_top_builddir)/astra-cc/astra-cc" NVCC="$(NVCC_PATH)" \
	ASTRA_TEST_SANITIZERS="$(TEST_SANITIZERS)"

check-local: astra-cc/astra-cc
	@$(TEST_ENV) $(SHELL) -c '$(abs_top_srcdir)/testsuite/lib/run-tests $(TESTS_ARGS)'

check-gpu: all $(check_PROGRAMS)
	@$(TEST_ENV) $(SHELL) -c '$(abs_top_srcdir)/testsuite/lib/run-tests --gpu-only $(TESTS_ARGS)'

clean-local:
	rm -rf testsuite/scratch

.PHONY: check-gpu
