## passes/ - between the nvcc command line and the cache: extraction,
## the pragma, substitution, test-program generation.

libastra_a_SOURCES += \
	passes/extract.c passes/extract.h \
	passes/includes.c passes/includes.h \
	passes/kernel.c passes/kernel.h \
	passes/listkernels.c passes/listkernels.h \
	passes/pragma.c passes/pragma.h \
	passes/pipeline.c passes/pipeline.h
