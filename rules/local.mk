## rules/ - the offline rule catalogue: one file per rule, one registry.

libastra_a_SOURCES += \
	rules/syntax.c rules/syntax.h \
	rules/facts.c rules/facts.h \
	rules/helpers.c rules/helpers.h \
	rules/engine.c rules/rule.h \
	rules/registry.c \
	rules/canon.c rules/canon-inline.c rules/canon-forms.c rules/canon.h rules/canon-int.h \
	rules/chunk.c rules/chunk-scan.c rules/chunk-gen.c rules/chunk.h rules/chunk-int.h \
	rules/r-vectorize.c \
	rules/r-online.c \
	rules/r-rowsplit.c \
	rules/r-flatten.c \
	rules/r-warprows.c \
	rules/r-elems.c \
	rules/r-warpreduce.c rules/trees.h \
	rules/r-rowcache.c \
	rules/r-transpose.c \
	rules/r-gridstride.c \
	rules/r-blocksize.c \
	rules/r-hoist.c \
	rules/r-half2.c \
	rules/rowmap.c rules/rowmap.h \
	rules/r-rowmap.c \
	rules/r-lower.c \
	rules/r-lower-reduce.c \
	rules/r-lower-transpose.c \
	rules/explain.c rules/explain.h \
	rules/planner.c rules/planner.h \
	rules/r-tune.c \
	rules/r-fastmath.c \
	rules/r-unroll.c \
	rules/r-restrict.c \
	rules/r-launchbounds.c \
	rules/r-select.c
