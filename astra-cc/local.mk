## astra-cc/ - the driver: entry point, nvcc option table, config, logging,
## process running and the small data structures everything uses.

bin_PROGRAMS += astra-cc/astra-cc
astra_cc_astra_cc_SOURCES = astra-cc/main.c
astra_cc_astra_cc_LDADD = $(ASTRA_LIBS)

libastra_a_SOURCES += \
	astra-cc/buf.c astra-cc/buf.h \
	astra-cc/commands.c astra-cc/commands.h \
	astra-cc/config.c astra-cc/config.h \
	astra-cc/driver.h \
	astra-cc/json.c astra-cc/json.h \
	astra-cc/locate.c astra-cc/locate.h \
	astra-cc/log.c astra-cc/log.h \
	astra-cc/nvccopts.c astra-cc/nvccopts.h \
	astra-cc/run.c astra-cc/run.h \
	astra-cc/toolmemo.c astra-cc/toolmemo.h \
	astra-cc/util.c astra-cc/util.h \
	astra-cc/vec.c astra-cc/vec.h
