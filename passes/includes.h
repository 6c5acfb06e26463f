/*
 * includes.h - the project headers a source file can see, found cheaply.
 *
 * Used twice: by the driver's cheap scan on every compile (does this TU or
 * one of its project headers mention `#pragma astra`?) and by extraction
 * and the key (kernels defined in headers; content hashes of the headers a
 * kernel can see, so that a changed header never reuses a stale variant).
 *
 * No preprocessor runs: every `#include` line of a file is followed,
 * whatever #if it sits under (an over-approximation, which only makes the
 * key more careful).  `#include "x"` is resolved relative to the including
 * file, then in the -I directories; `#include <x>` only in -I directories.
 * System headers are not project headers: -isystem directories, and any
 * directory or file under /usr/ or /opt/ (the CUDA toolkit, the C++
 * library), are never entered; the nvcc version stands for them in the key.
 * Includes spelled through a macro (`#include HEADER`) cannot be followed.
 */
#ifndef ASTRA_INCLUDES_H
#define ASTRA_INCLUDES_H

#include <stddef.h>

#include "astra-cc/nvccopts.h"

struct astra_header {
	char *path;       /* as opened: the includer's directory or an -I dir joined with spelled */
	char *spelled;    /* as written between the quotes or brackets */
	char *text;       /* contents (NUL-terminated), NULL when not found */
	size_t len;
	int has_pragma;   /* mentions `#pragma astra` */
	unsigned depth;   /* 1: included by the main file */
};

struct astra_includes {
	struct astra_header *items; /* in discovery order (depth first), each file once */
	size_t nr, alloc;
	int truncated;    /* the depth or file-count limit was hit */
};

enum astra_includes_flags {
	/* Stop at the first header that mentions the pragma (the cheap scan). */
	ASTRA_INCLUDES_STOP_AT_PRAGMA = 1 << 0,
	/* Record includes that cannot be found (text NULL), for the key. */
	ASTRA_INCLUDES_MISSING = 1 << 1,
};

/* Limits: nesting depth and number of headers followed. */
#define ASTRA_INCLUDES_MAX_DEPTH 16
#define ASTRA_INCLUDES_MAX_FILES 1000

/*
 * Collect the project headers reachable from the file path whose contents
 * are text[0..len) into out (initialized by the caller with zeros).
 * include_dirs: the -I directories in order, NULL-terminated (may be NULL).
 * Returns the number of headers that mention the pragma.
 */
int astra_includes_scan(const char *path, const char *text, size_t len, char *const *include_dirs,
			unsigned flags, struct astra_includes *out);
void astra_includes_release(struct astra_includes *inc);

/* "#pragma" then blanks then "astra" anywhere in s (comments included). */
int astra_text_mentions_pragma(const char *s, size_t len);

/* Append the -I directories of a command line to dirs, in order. */
void astra_includes_dirs(const struct astra_cmdline *cl, struct astra_vec *dirs);

#endif
