## passes/ - between the nvcc command line and the cache: extraction,
## the pragma, substitution, test-program generation.

libastra_a_SOURCES += \
	passes/extract.c passes/extract.h \
	passes/includes.c passes/includes.h \
	passes/kernel.c passes/kernel.h \
	passes/listkernels.c passes/listkernels.h \
	passes/pragma.c passes/pragma.h \
	passes/pipeline.c passes/pipeline.h \
	passes/rewrite.c passes/rewrite.h \
	passes/substitute.c passes/substitute.h \
	passes/withvariant.c passes/withvariant.h \
	passes/harness.c passes/harness.h \
	passes/screen.c passes/screen.h

# The test programs' runtime is CUDA source kept as a real file (so that it
# is read, reviewed and compiled as CUDA) and embedded into astra-cc as a
# C string at build time.
nodist_libastra_a_SOURCES = passes/harness-rt.c
EXTRA_DIST += passes/harness-rt.cuh
CLEANFILES += passes/harness-rt.c
BUILT_SOURCES = passes/harness-rt.c
passes/harness-rt.c: $(srcdir)/passes/harness-rt.cuh
	$(AM_V_GEN)$(MKDIR_P) passes && { \
		echo '/* Generated from passes/harness-rt.cuh by passes/local.mk: do not edit. */'; \
		echo '#include "passes/harness.h"'; \
		echo 'const char astra_harness_runtime[] ='; \
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $(srcdir)/passes/harness-rt.cuh; \
		echo ';'; } > $@-t && mv $@-t $@
