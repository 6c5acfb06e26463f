/*
 * includes.h - the headers a source file can see, found cheaply.
 *
 * Used twice: by the driver's cheap scan on every compile (does this TU or
 * one of its project headers mention `#pragma astra`?) and by extraction
 * and the key (kernels defined in headers; content hashes of every header a
 * kernel can see, so that a changed header never reuses a stale variant).
 *
 * No preprocessor runs: every `#include` and `#include_next` line of a file
 * is followed, whatever #if it sits under (an over-approximation, which
 * only makes the key more careful).  Includes are resolved as the host
 * compiler resolves them when nvcc preprocesses device code (gcc's order):
 *
 *   "x"  the includer's directory, then -iquote directories, then as <x>
 *   <x>  -I directories (-Xcompiler's first, then nvcc's), the CUDA
 *        toolkit's include directory, -isystem directories, the toolkit's
 *        cccl directory, the host compiler's own directories, -idirafter
 *   #include_next <x>: the same chain, after the directory where the
 *        including header was found
 *
 * plus every `-include` (--pre-include) file, resolved from the current
 * directory first.
 *
 * Two scopes.  The cheap scan (the driver's, on every compile) enters only
 * project headers: no -isystem, -idirafter or host compiler directories,
 * nothing under /usr/ or /opt/.  The full scan (extraction, for the key)
 * enters every header except the CUDA toolkit's own, which the nvcc
 * version stands for: third-party libraries reached through -isystem, the
 * C++ library, /usr/local/include, all by content.  Includes spelled
 * through a macro (`#include HEADER`) cannot be followed.
 */
#ifndef ASTRA_INCLUDES_H
#define ASTRA_INCLUDES_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/nvccopts.h"

enum astra_search_dir_flags {
	ASTRA_DIR_QUOTE = 1 << 0,    /* -iquote: for "x" only */
	ASTRA_DIR_SYSTEM = 1 << 1,   /* -isystem, -idirafter, the host compiler's: the full scan only */
	ASTRA_DIR_TOOLKIT = 1 << 2,  /* the CUDA toolkit's: a header found here is never entered */
};

struct astra_search_dir {
	char *path;
	unsigned flags;
};

/* Where includes are looked up, in order; see the top of this file. */
struct astra_search_path {
	struct astra_search_dir *dirs;
	size_t nr, alloc;
	char **pre_includes;      /* -include files, in order */
	size_t nr_pre, alloc_pre;
	char **toolkit;           /* the toolkit's include roots, resolved (realpath) */
	size_t nr_toolkit, alloc_toolkit;
	/* The host compiler: its version line, for the key; NULL when unknown. */
	char *host_id;
	/* Its file's identity (compiler_check: "content <hash>", ...); NULL when unknown. */
	char *host_file;
	/* Its own directories are known (else the full scan is incomplete). */
	int host_known;
};

/*
 * The search path of a command line alone: -iquote, -I, -isystem,
 * -idirafter (nvcc's and -Xcompiler's) and -include files.  Enough for the
 * cheap scan.  sp is zeroed by the caller.
 */
void astra_search_path_from_cmdline(const struct astra_cmdline *cl, struct astra_search_path *sp);

/*
 * Complete sp (from astra_search_path_from_cmdline) with the toolchain:
 * the toolkit's include directories, found from the nvcc binary at nvcc
 * (<bin>/../include and <bin>/../targets/<any>/include, when nvcc sits in
 * a bin/ directory), and the host compiler's own directories and version
 * (from `<cc> -E -x c++ -v /dev/null`, with -Xcompiler's options,
 * remembered in <cache_dir>/tool-output/ like the nvcc version; the host
 * compiler is -ccbin's, else $NVCC_CCBIN, else gcc).  Returns 0, or -1
 * (logged) when the host compiler cannot tell; sp->host_known is then 0.
 */
int astra_search_path_add_toolchain(struct astra_search_path *sp, const struct astra_cmdline *cl,
				    const char *nvcc, const char *cache_dir);

void astra_search_path_release(struct astra_search_path *sp);

struct astra_header {
	char *path;       /* as opened: the includer's directory or a search directory joined with spelled */
	char *spelled;    /* as written between the quotes or brackets */
	char *text;       /* contents (NUL-terminated), NULL when not found */
	size_t len;
	int has_pragma;   /* mentions `#pragma astra` */
	unsigned depth;   /* 1: included by the main file (or an -include file) */
	/*
	 * Where it was first included: parent is the index in items of the
	 * header whose #include line reached it, -1 for the main file (or an
	 * -include file); at is the byte offset of that line's start in the
	 * includer's text (0 for an -include file).  What comes before at is
	 * what the compiler had seen when it entered this header.
	 */
	long parent;
	size_t at;
	long dir;         /* index in the search path where it was found, -1 otherwise */
	int system;       /* found in a system directory, or through one of its headers */
	dev_t dev;        /* identity of the file (when found) */
	ino_t ino;
};

struct astra_includes {
	struct astra_header *items; /* in discovery order (depth first), each file once */
	size_t nr, alloc;
	int truncated;    /* the depth or file-count limit was hit: the set is incomplete */
};

enum astra_includes_flags {
	/* Stop at the first header that mentions the pragma (the cheap scan). */
	ASTRA_INCLUDES_STOP_AT_PRAGMA = 1 << 0,
	/* Record includes that cannot be found (text NULL), for the key. */
	ASTRA_INCLUDES_MISSING = 1 << 1,
	/* The full scan: enter system headers too (all but the toolkit's). */
	ASTRA_INCLUDES_SYSTEM = 1 << 2,
};

/* Limits: nesting depth and number of headers followed. */
#define ASTRA_INCLUDES_MAX_DEPTH 200
#define ASTRA_INCLUDES_MAX_FILES 20000

/*
 * Collect the headers reachable from the file path whose contents are
 * text[0..len) into out (initialized by the caller with zeros), looked up
 * in sp (may be NULL: the includer's directory only).  pre: follow sp's
 * -include files first (for a main file; not for a header).  Returns the
 * number of headers that mention the pragma.
 */
int astra_includes_scan(const char *path, const char *text, size_t len, const struct astra_search_path *sp,
			int pre, unsigned flags, struct astra_includes *out);
void astra_includes_release(struct astra_includes *inc);

/*
 * "#pragma" then blanks then "astra" anywhere in s (comments included), or
 * the annotation macro `ASTRA(` first on a line (doc/pragma.md).
 */
int astra_text_mentions_pragma(const char *s, size_t len);

#endif
