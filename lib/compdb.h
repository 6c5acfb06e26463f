/*
 * compdb.h - the compiles of a compilation database (compile_commands.json,
 * as CMake, Bear and Meson write it).
 *
 * `astra-cc --report -p DIR` takes its translation units from here.  Only
 * .cu files compiled by nvcc are kept; launchers in front of nvcc
 * (astra-cc itself, ccache, sccache) are dropped and nvcc is replaced by
 * the real one, so that each command is what astra-cc would see.
 * (agents/warmup.c reads the same file with a copy of these rules of its
 * own, older than this module.)
 */
#ifndef ASTRA_COMPDB_H
#define ASTRA_COMPDB_H

#include <stddef.h>

#include "lib/vec.h"

struct astra_compdb_entry {
	char *dir;              /* the compile's working directory */
	char *file;             /* the .cu file as the database names it */
	struct astra_vec argv;  /* argv[0]: the real nvcc */
};

/*
 * Read where (a compile_commands.json, or a directory holding one) and
 * append its nvcc compiles of .cu files to *out.  nvcc: the real nvcc's
 * path.  Returns 0, or -1 after printing why on stderr (unreadable, not a
 * JSON array).
 */
int astra_compdb_load(const char *where, const char *nvcc, struct astra_compdb_entry **out, size_t *nr,
		      size_t *alloc);

void astra_compdb_free(struct astra_compdb_entry *v, size_t nr);

#endif
