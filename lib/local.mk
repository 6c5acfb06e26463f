## lib/ - the ground floor: growable buffers and vectors, allocation and
## error verbs, logging, JSON, running programs, settings, the nvcc
## command-line model and option table, architecture names, locating nvcc.
## Nothing here includes anything of the project outside lib/.

libastra_a_SOURCES += \
	lib/arch.c lib/arch.h \
	lib/banned.h \
	lib/buf.c lib/buf.h \
	lib/compdb.c lib/compdb.h \
	lib/config.c lib/config.h \
	lib/hash.c lib/hash.h \
	lib/http.c lib/http.h \
	lib/json.c lib/json.h \
	lib/locate.c lib/locate.h \
	lib/log.c lib/log.h \
	lib/nvccopts.c lib/nvccopts.h \
	lib/run.c lib/run.h \
	lib/sha256.c lib/sha256.h \
	lib/toolmemo.c lib/toolmemo.h \
	lib/trust.c lib/trust.h \
	lib/util.c lib/util.h \
	lib/vec.c lib/vec.h \
	lib/workspace.c lib/workspace.h
