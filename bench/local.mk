## bench/ - the benchmark suite: first-version kernels (bench/kernels/),
## their hand-optimized references (bench/reference/) and a standalone
## checker and timer for a GPU host (bench/run-reference); and examples/,
## the newcomer's demo project.  Nothing here is built by `make`;
## `make check` compiles all of it (testsuite/cases/kernels/).

EXTRA_DIST += bench/verify bench/verify-gpu.sh \
	bench/kernels bench/reference bench/bench.cu bench/emulate.h bench/gen-pragmas bench/gen-tu2000 \
	bench/wild bench/emu-check bench/emu-check-rt.h bench/nest-count bench/nest bench/first-round \
	bench/run-reference examples/Makefile examples/README.md examples/layer.cu \
	examples/layer.h examples/main.cu

# On a GPU host: check every reference against its original and time both.
bench-reference: testsuite/helpers/gen-pragmas
	builddir="$(abs_top_builddir)" NVCC="$(NVCC_PATH)" $(SHELL) $(srcdir)/bench/run-reference

# On a GPU host: the verifier's suite and timing checks (bench/verify-gpu.sh).
bench-verify: all
	builddir="$(abs_top_builddir)" NVCC="$(NVCC_PATH)" $(SHELL) $(srcdir)/bench/verify-gpu.sh

.PHONY: bench-reference bench-verify

# Extraction and key time for one TU (built on demand: make bench/bench-extract;
# bench/bench-extract.sh generates a 2,000-line TU and reports the figures).
EXTRA_PROGRAMS = bench/bench-extract bench/bench-sandbox
bench_bench_extract_SOURCES = bench/bench-extract.c
bench_bench_extract_LDADD = $(ASTRA_LIBS)
# What the test programs' sandbox costs per program (make bench/bench-sandbox; doc/verify.md).
bench_bench_sandbox_SOURCES = bench/bench-sandbox.c
bench_bench_sandbox_LDADD = $(ASTRA_LIBS)
CLEANFILES += $(EXTRA_PROGRAMS)
EXTRA_DIST += bench/bench-extract.sh

# The main benchmark (GPU): the rules engine on both suites (bench/kernels/,
# then bench/wild/), each from an empty cache; JSON and a markdown table per
# suite in bench/results/ (suite-*, wild-*).
# One kernel at a time by default, as the README's table was measured
# (each kernel's time is then its own); BENCH_JOBS=4 finishes sooner.
# Without a GPU it says so and fails.
BENCH_JOBS = 1
bench: all
	builddir="$(abs_top_builddir)" $(SHELL) $(srcdir)/bench/run-suite -o $(srcdir)/bench/results -j $(BENCH_JOBS)
	builddir="$(abs_top_builddir)" $(SHELL) $(srcdir)/bench/run-suite --suite wild -o $(srcdir)/bench/results -j $(BENCH_JOBS)

.PHONY: bench
EXTRA_DIST += bench/run-suite bench/suite-report

# On a GPU host: shape dispatch on silu_and_mul as the Astra paper's
# starting kernel is written (bench/run-dispatch; doc/bench.md).
bench-dispatch: all
	builddir="$(abs_top_builddir)" $(SHELL) $(srcdir)/bench/run-dispatch -o $(srcdir)/bench/results

# On any machine: what the per-launch choice costs on the host (bench/dispatch.sh).
bench-dispatch-cpu: all testsuite/helpers/put-variant
	builddir="$(abs_top_builddir)" NVCC="$(NVCC_PATH)" $(SHELL) $(srcdir)/bench/dispatch.sh \
		$(srcdir)/bench/results/dispatch-choice.json

.PHONY: bench-dispatch bench-dispatch-cpu
EXTRA_DIST += bench/run-dispatch bench/dispatch bench/dispatch.sh

# Capture builds on a GPU host (issue 20): the example with `#pragma astra
# optimize` alone, captured ids, the recorder's overhead (doc/capture.md).
EXTRA_DIST += bench/run-capture bench/capture

# Whole applications through astra-cc (issue 29): the driver and its lists
# (bench/apps/README.md).
EXTRA_DIST += bench/apps

# The corpus of real kernels (issue 27, item 4): the list and the scripts
# (bench/corpus/README); the projects' code is not in the tree.
EXTRA_DIST += bench/corpus/README bench/corpus/corpus.list bench/corpus/annotate bench/corpus/explain bench/corpus/run \
	bench/corpus/copy-sizes.cu
