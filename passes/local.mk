## passes/ - between the nvcc command line and the cache: extraction,
## the pragma, substitution, test-program generation.

libastra_a_SOURCES += \
	passes/pipeline.c passes/pipeline.h \
	passes/rewrite.c passes/rewrite.h \
	passes/substitute.c passes/substitute.h \
	passes/withvariant.c passes/withvariant.h
