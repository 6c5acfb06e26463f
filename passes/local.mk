## passes/ - the build path: for an annotated compile, the keys, the
## lookups, the miss policy (registered by the driver) and substitution.

libastra_a_SOURCES += \
	passes/ccache.c passes/ccache.h \
	passes/pipeline.c passes/pipeline.h \
	passes/rewrite.c passes/rewrite.h \
	passes/dispatch.c passes/dispatch.h \
	passes/substitute.c passes/substitute.h
