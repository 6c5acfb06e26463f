## passes/ - between the nvcc command line and the cache: extraction,
## the pragma, substitution, test-program generation.

libastra_a_SOURCES += \
	passes/includes.c passes/includes.h \
	passes/pragma.c passes/pragma.h \
	passes/pipeline.c passes/pipeline.h
