## passes/ - the build path: for an annotated compile, the keys, the
## lookups, the miss policy (registered by the driver), substitution, and
## capture builds.

libastra_a_SOURCES += \
	passes/capture.c passes/capture.h \
	passes/ccache.c passes/ccache.h \
	passes/pipeline.c passes/pipeline.h \
	passes/rewrite.c passes/rewrite.h \
	passes/dispatch.c passes/dispatch.h \
	passes/substitute.c passes/substitute.h

# The recorder of capture builds is CUDA C++ kept as a real file and
# embedded into astra-cc as a C string at build time (as verify/'s runtime).
nodist_libastra_a_SOURCES += passes/capture-rt.c
EXTRA_DIST += passes/capture-rt.cuh doc/capture.md
CLEANFILES += passes/capture-rt.c
BUILT_SOURCES += passes/capture-rt.c
passes/capture-rt.c: $(srcdir)/passes/capture-rt.cuh $(srcdir)/scripts/embed-text
	$(AM_V_GEN)$(MKDIR_P) passes && $(SHELL) $(srcdir)/scripts/embed-text $(srcdir)/passes/capture-rt.cuh passes/capture.h astra_capture_runtime > $@-t && mv $@-t $@
