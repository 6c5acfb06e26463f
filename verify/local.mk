## verify/ - the verifier wing: test-program generation and its device
## runtime, screening of candidates, running them, timing, the GPU probe
## and the device's measured ceilings.  verify/verify.h is its interface.

libastra_a_SOURCES += \
	verify/device.c verify/device.h \
	verify/gpu.c verify/gpu.h \
	verify/harness.c verify/harness.h \
	verify/profile.c verify/profile.h \
	verify/sandbox.c verify/sandbox.h \
	verify/screen.c verify/screen.h \
	verify/verify.c verify/verify-build.c verify/verify-run.c verify/verify.h verify/verify-int.h

# The test programs' runtime is CUDA source kept as a real file (so that it
# is read, reviewed and compiled as CUDA) and embedded into astra-cc as a
# C string at build time.
nodist_libastra_a_SOURCES = verify/harness-rt.c
EXTRA_DIST += verify/harness-rt.cuh doc/verify.md
CLEANFILES += verify/harness-rt.c
BUILT_SOURCES = verify/harness-rt.c
verify/harness-rt.c: $(srcdir)/verify/harness-rt.cuh $(srcdir)/scripts/embed-text
	$(AM_V_GEN)$(MKDIR_P) verify && $(SHELL) $(srcdir)/scripts/embed-text $(srcdir)/verify/harness-rt.cuh verify/harness.h astra_harness_runtime > $@-t && mv $@-t $@
