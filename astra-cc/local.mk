## astra-cc/ - the top floor: the driver (main.c: wrap nvcc, fall back to
## it on any failure) and astra-cc's own commands, one file each behind
## one table (commands.c).

bin_PROGRAMS += astra-cc/astra-cc
astra_cc_astra_cc_SOURCES = astra-cc/main.c
astra_cc_astra_cc_LDADD = $(ASTRA_LIBS)

libastra_a_SOURCES += \
	astra-cc/commands.c astra-cc/commands.h \
	astra-cc/driver.h \
	astra-cc/split.c astra-cc/split.h \
	astra-cc/cmd-cache.h \
	astra-cc/cmd-capture.c astra-cc/cmd-capture.h \
	astra-cc/cmd-cleanup.c \
	astra-cc/cmd-entries.c \
	astra-cc/cmd-stats.c \
	astra-cc/cmd-util.c astra-cc/cmd-util.h \
	astra-cc/cmd-explain.c astra-cc/cmd-explain.h \
	astra-cc/cmd-list-kernels.c astra-cc/cmd-list-kernels.h \
	astra-cc/cmd-verify.c astra-cc/cmd-verify.h \
	astra-cc/cmd-warmup.c astra-cc/cmd-warmup.h \
	astra-cc/cmd-with-variant.c astra-cc/cmd-with-variant.h \
	astra-cc/cmd-report.c astra-cc/cmd-report.h \
	astra-cc/report-html.c astra-cc/report-html.h \
	astra-cc/report-svg.c astra-cc/report-svg.h \
	astra-cc/report-diff.c astra-cc/report-diff.h

EXTRA_DIST += doc/report.md
