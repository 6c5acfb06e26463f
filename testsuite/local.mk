## testsuite/ - `make check` runs the unit tests and the case directories
## hermetically (no network, no GPU needed); `make check-gpu` runs only the
## cases that need a GPU.  Both end with "N passed, N failed[, N skipped]".

check_PROGRAMS += \
	testsuite/unit/test-buf \
	testsuite/unit/test-nvccopts \
	testsuite/unit/test-config \
	testsuite/unit/test-llm-answer \
	testsuite/unit/test-llm-client \
	testsuite/unit/test-llm-fuzz

testsuite_unit_test_buf_SOURCES = testsuite/unit/test-buf.c testsuite/unit/unit.h
testsuite_unit_test_buf_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_nvccopts_SOURCES = testsuite/unit/test-nvccopts.c testsuite/unit/unit.h
testsuite_unit_test_nvccopts_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_config_SOURCES = testsuite/unit/test-config.c testsuite/unit/unit.h
testsuite_unit_test_config_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_llm_answer_SOURCES = testsuite/unit/test-llm-answer.c testsuite/unit/unit.h
testsuite_unit_test_llm_answer_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_llm_client_SOURCES = testsuite/unit/test-llm-client.c testsuite/unit/unit.h
testsuite_unit_test_llm_client_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_llm_fuzz_SOURCES = testsuite/unit/test-llm-fuzz.c testsuite/fuzz/fuzz-llm-response.c \
	testsuite/unit/unit.h
testsuite_unit_test_llm_fuzz_LDADD = $(ASTRA_LIBS)

if ENABLE_FUZZERS
# libFuzzer builds (configure --enable-fuzzers CC=clang).
noinst_PROGRAMS += testsuite/fuzz/fuzz-llm-response
testsuite_fuzz_fuzz_llm_response_SOURCES = testsuite/fuzz/fuzz-llm-response.c
testsuite_fuzz_fuzz_llm_response_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
testsuite_fuzz_fuzz_llm_response_LDADD = $(ASTRA_LIBS)
endif

# Test helpers for the LLM client: a stub chat-completions server and a
# driver that runs the "llm" optimizer's rounds (cases in testsuite/cases/llm).
check_PROGRAMS += testsuite/lib/stub-chat testsuite/lib/llm-propose
testsuite_lib_stub_chat_SOURCES = testsuite/lib/stub-chat.c
testsuite_lib_stub_chat_LDADD = $(ASTRA_LIBS)
testsuite_lib_llm_propose_SOURCES = testsuite/lib/llm-propose.c
testsuite_lib_llm_propose_LDADD = $(ASTRA_LIBS)

EXTRA_DIST += testsuite/lib testsuite/cases testsuite/projects testsuite/fuzz/corpus

TEST_ENV = srcdir="$(abs_top_srcdir)" builddir="$(abs_top_builddir)" \
	ASTRA_CC="$(abs_top_builddir)/astra-cc/astra-cc" NVCC="$(NVCC_PATH)"

check-local: astra-cc/astra-cc
	@$(TEST_ENV) $(SHELL) -c '$(abs_top_srcdir)/testsuite/lib/run-tests $(TESTS_ARGS)'

check-gpu: all $(check_PROGRAMS)
	@$(TEST_ENV) $(SHELL) -c '$(abs_top_srcdir)/testsuite/lib/run-tests --gpu-only $(TESTS_ARGS)'

clean-local:
	rm -rf testsuite/scratch

.PHONY: check-gpu
