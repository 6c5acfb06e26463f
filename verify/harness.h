/*
 * harness.h - writing the test program that judges a round of candidates.
 *
 * One generated CUDA program holds, in this order (doc/verify.md shows one):
 *   1. the original file's text up to the end of the annotated kernel, under
 *      `#line` so diagnostics name the original file; its main() renamed.
 *      A header's kernel comes after the compile unit's text before the
 *      header (struct astra_harness's prefix).
 *      This is the reference: the original kernel, compiled from its own
 *      TU text with the TU's flags, seeing exactly what it saw.
 *   2. the runtime (harness-rt.cuh, embedded in astra-cc).
 *   3. each candidate in `namespace astra_cand_<i>` (inside the original's
 *      own namespaces), under `#line 1 "<name>"` so that compiler messages
 *      point into the candidate's text and name it.
 *   4. per instantiation (the pragma's types()), a launcher per version with
 *      a static_assert that the candidate keeps the original's signature
 *      (under `#line 1 "<name> (launcher)"`), and the test cases: scalars
 *      and shape names from the pragma as C++ (nvcc evaluates them), one
 *      buffer per pointer parameter sized by buffers(), ranges,
 *      tolerances, flops, and the launches: the pragma's geometry for the
 *      reference and for candidates without their own, the candidate's
 *      geometry (expressions of the kernel's parameter names, under
 *      `#line 1 "<name> (geometry)"`) otherwise.
 *   5. main(), which hands the cases to astra_rt::Program.
 *
 * The generator is pure: text in, text out.  Compiling and running are
 * verify/verify.c's job.
 */
#ifndef ASTRA_HARNESS_H
#define ASTRA_HARNESS_H

#include <stddef.h>

#include "lib/buf.h"
#include "front/kernel.h"

/* The runtime's text (generated from verify/harness-rt.cuh at build time). */
extern const char astra_harness_runtime[];

struct astra_harness_cand {
	const char *name;               /* unique; no '"', '\\' or newline */
	const char *text;               /* screened text (verify/screen.h) */
	const char *grid, *block, *shmem; /* own geometry; NULL: the pragma's */
};

/* Text that comes before the kernel's file: a part of a file, named by #line. */
struct astra_harness_part {
	const char *path;               /* as #line names it; no newline */
	const char *text;
	size_t len;
};

struct astra_harness {
	const struct astra_kernel *kernel;
	const char *src_path;           /* the file that defines the kernel (as #line names it) */
	const char *src_text;           /* its text; kernel->start/end are offsets into it */
	size_t src_len;
	/*
	 * For a kernel in a header: what the compile unit has before the
	 * header, outermost first (the main file up to its #include line that
	 * reaches the header, then each header of the chain up to its own),
	 * emitted before src_text so that the kernel's context is the
	 * build's.  NULL, 0 for a kernel in the main file.
	 */
	const struct astra_harness_part *prefix;
	size_t nr_prefix;
	const struct astra_harness_cand *cands;
	size_t nr_cands;
};

/*
 * Append the program's text to out.  Returns 0, or -1 with the reason in
 * why (the pragma does not describe the kernel well enough to test it: a
 * pointer parameter without buffers(), a scalar without a value, no shapes,
 * a template without types()...).
 */
int astra_harness_generate(const struct astra_harness *h, struct astra_buf *out, struct astra_buf *why);

/* The #line file names used for candidate name's launcher and geometry (malloc'd). */
char *astra_harness_launcher_file(const char *name);
char *astra_harness_geometry_file(const char *name);

/* #line file names of the generated parts that are not candidates. */
#define ASTRA_HARNESS_RT_FILE "astra-harness-rt.cuh"
#define ASTRA_HARNESS_CASES_FILE "astra-harness-cases"

#endif
