## testsuite/ - `make check` runs the unit tests and the case directories
## hermetically (no network, no GPU needed); `make check-gpu` runs only the
## cases that need a GPU.  Both end with "N passed, N failed[, N skipped]".

check_PROGRAMS += \
	testsuite/unit/test-buf \
	testsuite/unit/test-nvccopts \
	testsuite/unit/test-config \
	testsuite/unit/test-manifest \
	testsuite/unit/test-store \
	testsuite/helpers/cache-tool \
	testsuite/fuzz/fuzz-manifest

testsuite_unit_test_buf_SOURCES = testsuite/unit/test-buf.c testsuite/unit/unit.h
testsuite_unit_test_buf_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_nvccopts_SOURCES = testsuite/unit/test-nvccopts.c testsuite/unit/unit.h
testsuite_unit_test_nvccopts_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_config_SOURCES = testsuite/unit/test-config.c testsuite/unit/unit.h
testsuite_unit_test_config_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_manifest_SOURCES = testsuite/unit/test-manifest.c testsuite/unit/unit.h
testsuite_unit_test_manifest_LDADD = $(ASTRA_LIBS)
testsuite_unit_test_store_SOURCES = testsuite/unit/test-store.c testsuite/unit/unit.h
testsuite_unit_test_store_LDADD = $(ASTRA_LIBS)

# Drives the cache API from the shell (testsuite/cases/cache/, bench/).
testsuite_helpers_cache_tool_SOURCES = testsuite/helpers/cache-tool.c
testsuite_helpers_cache_tool_LDADD = $(ASTRA_LIBS)

# Fuzz targets: libFuzzer with --enable-fuzzers (CC=clang), else a
# standalone driver that `make check` runs for a bounded time.
testsuite_fuzz_fuzz_manifest_SOURCES = testsuite/fuzz/fuzz-manifest.c
testsuite_fuzz_fuzz_manifest_LDADD = $(ASTRA_LIBS)
if ENABLE_FUZZERS
testsuite_fuzz_fuzz_manifest_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
testsuite_fuzz_fuzz_manifest_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
else
testsuite_fuzz_fuzz_manifest_SOURCES += testsuite/fuzz/interim-driver.c
testsuite_fuzz_fuzz_manifest_CFLAGS = $(AM_CFLAGS)
testsuite_fuzz_fuzz_manifest_LDFLAGS = $(AM_LDFLAGS)
endif

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
