/*
 * extract.h - finding annotated kernels: the libclang adapter.
 *
 * extract.c is the only file that includes clang-c/Index.h.  It parses
 * only the file at hand (CXTranslationUnit_SingleFileParse: #include lines
 * are not followed, so it neither needs nor cares which CUDA headers are
 * installed) as CUDA host code, with function bodies skipped, and reads
 * declarations from the AST and everything else (pragma lines, bodies,
 * launch sites, macros) from libclang's token stream of the file.
 *
 * What it finds is described in front/kernel.h: every __global__ function
 * definition (template or not, extern "C", in namespaces) that has
 * `#pragma astra` lines right above it, with its exact byte range,
 * parameters and template parameters as written, the parsed and checked
 * pragma, its tokens, its same-file dependencies and the launch sites of
 * the main file.  Kernels in project headers (front/includes.h) are
 * found by parsing each header that mentions the pragma on its own.
 *
 * Problems in the user's code (a malformed pragma, a pragma above nothing)
 * go into tu->diags as GNU-style warnings; a kernel whose pragma is wrong
 * is still listed, with bad_pragma set, so callers can say why it is left
 * alone.
 *
 * The functions may be called from several threads at once: each call has
 * its own libclang index, and libclang is loaded (dlopen) once, at the
 * first call.
 */
#ifndef ASTRA_EXTRACT_H
#define ASTRA_EXTRACT_H

#include "lib/buf.h"
#include "lib/nvccopts.h"
#include "front/kernel.h"

/*
 * Fill tu (zeroed by the caller) from the source file path, compiled with
 * the command line cl (its -D, -U and -std matter; cl may be NULL).  The
 * file is read once; tu->text keeps those bytes, and every offset refers
 * to them.  Returns 0, or -1 (logged) when the file cannot be read or
 * libclang fails; tu must be released either way.
 */
int astra_extract_tu(struct astra_tu *tu, const char *path, const struct astra_cmdline *cl);

/* The same for text already in memory (len bytes), named path. */
int astra_extract_text(struct astra_tu *tu, const char *path, const char *text, size_t len,
		       const struct astra_cmdline *cl);

/* What astra_extract_candidate learns about a candidate's text. */
struct astra_candidate {
	struct astra_kernel kernel; /* the candidate's kernel; offsets into the variant's text */
	char **names;               /* other file-scope names it defines (helpers, types, constants) */
	size_t nr_names;
};

void astra_candidate_release(struct astra_candidate *c);

/*
 * Check that v->text is an acceptable variant of orig, as an optimizer (a
 * rule, an LLM) proposes it, and fill v->grid/block/shmem from its
 * `#pragma astra launch(...)` line (NULL when it keeps the original
 * geometry).  Acceptable means: exactly one __global__ definition, named
 * like orig, with the same parameters (names and types; top-level
 * qualifiers may differ, but __restrict__ may be added only when orig's
 * pragma says noalias) and the same template parameters and linkage;
 * besides it only __device__ functions, types, static_asserts, constexpr
 * constants and `extern __shared__` arrays; device code only: no host
 * functions, no __host__ __device__ functions, and no member function of
 * a type it defines (constructor, destructor, conversion or other
 * operator, member template, friend) that is not __device__ only, unless
 * `= default` or `= delete`; no global or static variables (a variant
 * must not keep state between launches), no #include/#define/#undef/#line,
 * no pragmas but unroll/nounroll and the launch line, no namespaces or
 * using-directives, no kernel launches, no stray text (such as Markdown
 * fences).  The launch expressions (evaluated on the host) may use only
 * the parameters, template parameters, names the candidate defines,
 * literals and a few well-known names, and may call only dim3, min, max,
 * sizeof, alignof, decltype, the casts and conversions to built-in types:
 * no function, type or template parameter of anyone else is called.
 *
 * Returns 0, or -1 with the reasons (one per line) appended to why.  out
 * (may be NULL; zeroed by the caller) receives the candidate's kernel and
 * names, e.g. to rename them when several candidates share one test
 * program.
 */
int astra_extract_candidate(const struct astra_kernel *orig, struct astra_variant *v,
			    struct astra_candidate *out, struct astra_buf *why);

#endif
