/*
 * rewrite.h - the text of a substituted translation unit.
 *
 * Substitution (substitute.h) compiles a rewritten copy of the user's
 * source instead of the original.  This module produces that text and
 * nothing else: it reads no files and starts no processes, so every rule
 * below can be checked by unit tests on strings.
 *
 * A rewrite is a list of edits of one source file (replace bytes
 * [start, end) by new text).  Edits that carry generated code are framed by
 * `#line` directives so that every line that comes from the user's file
 * keeps its file name and line number (and, after an edit, its column):
 * diagnostics, __FILE__, __LINE__ and debug line tables name the original.
 *
 * Two kinds of substitution (DESIGN.md section 3, invariants 3 and 5):
 *
 *  - In place, for a variant that keeps the original launch geometry: the
 *    kernel's definition becomes
 *        #if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 900 || ...)
 *        <variant>
 *        #else
 *        <original>
 *        #endif
 *    so only the device passes of the verified architectures compile the
 *    variant; other architectures and the host pass see the original.
 *
 *  - With its own geometry (the variant's text has a `#pragma astra
 *    launch(grid=..., block=..., shmem=...)` line): the original stays
 *    untouched, the variant is added after it as __astra_v_<name> (on
 *    unverified architectures a trapping stub with the same signature), and
 *    a host launcher follows.  Each launch site
 *        ns::name<T><<<grid, block[, shmem[, stream]]>>>(args)
 *    in the main file becomes
 *        (ns::__astra_pending_<name>((grid), (block), (shmem), (stream)) ? (void)0
 *                                     : ns::__astra_launch_<name><T>(args))
 *    which, like the launch it replaces, is a void expression that
 *    evaluates the configuration first (the condition is sequenced before
 *    the branches) and then each argument once, converted as in a call;
 *    the configuration reaches the launcher through a per-thread chain
 *    (rewrite.c says why).  The launcher computes the variant's geometry
 *    from the kernel's parameters, keeps the stream, and launches the
 *    variant only when the code loaded for the current device was compiled
 *    for, and runs on, a verified architecture (cudaFuncGetAttributes:
 *    ptxVersion and binaryVersion, cached per device); otherwise it launches
 *    the original with the original configuration.  Shared memory: the
 *    variant's expression when it gives one, else the site's own value.
 *    Launches that astra-cc cannot see (other files, function pointers,
 *    cudaLaunchKernel) reach the untouched original.
 *
 * Shape dispatch (astra_subst.dispatch, passes/dispatch.h): a variant set.
 * Every variant is added under a private name (__astra_v1_<name>, ...,
 * with the same trapping stubs), the launch sites call the launcher as
 * above, and the launcher asks the emitted choice function which version
 * this launch runs (from the launch's own arguments), then launches that
 * variant (with its geometry, or the site's) or the original.  The
 * original stays untouched and is one of the choices; a variant that keeps
 * the original geometry is not substituted in place when it is one of a
 * set.  One variant for every launch keeps the forms above, unchanged.
 *
 * Direct launches (astra_subst.direct): when every device pass of the
 * command is for a verified architecture, all the code the command builds
 * has the variant, so the launcher drops the run-time test and the
 * fallback and always launches the variant.  The original is then named
 * only by what astra-cc cannot see: a template kernel is not instantiated
 * at all unless something else names it, which keeps a substituted compile
 * as cheap as the original's (compiling both, and the test, is what made
 * it 9-14 % slower).  As for in-place variants, a newer GPU that
 * JIT-compiles the verified architecture's PTX runs the variant.
 */
#ifndef ASTRA_REWRITE_H
#define ASTRA_REWRITE_H

#include <stddef.h>

#include "lib/buf.h"
#include "front/kernel.h"
#include "passes/dispatch.h"

/*
 * One substitution: compile `variant` in place of `kernel` for the compute
 * capabilities in ccs (e.g. {90}: the variant was verified on sm_90).
 * Nothing is owned: the pointers must outlive the rewrite.
 */
struct astra_subst {
	const struct astra_kernel *kernel;
	const struct astra_variant *variant;
	const int *ccs;
	size_t nr_ccs;
	/*
	 * For a variant with its own geometry: every device pass of the
	 * command compiles for an architecture in ccs, so the launcher always
	 * launches the variant and never names the original (see "Direct
	 * launches" above).
	 */
	int direct;
	/*
	 * Shape dispatch (passes/dispatch.h): the variant set, launched under
	 * private names through the launcher, which runs the version the
	 * choice gives for the launch's arguments (variant is variants[0]).
	 * NULL / 0 when one variant serves every launch.
	 */
	const struct astra_variant *variants;
	size_t nr_variants;
	const struct astra_dispatch *dispatch;
};

/* Replace bytes [start, end) of a file by text. */
struct astra_edit {
	size_t start, end;
	char *text;     /* owned */
	int framed;     /* text is whole lines of generated code: resynchronize with #line after it */
};

struct astra_edits {
	struct astra_edit *v;
	size_t nr, alloc;
};

#define ASTRA_EDITS_INIT { NULL, 0, 0 }

/* Add an edit; takes ownership of text (malloc'd). */
void astra_edits_add(struct astra_edits *e, size_t start, size_t end, char *text, int framed);
void astra_edits_release(struct astra_edits *e);

/*
 * Append src (len bytes) with the edits applied to out.  The output starts
 * with `#line 1 "spelling"`; after each framed edit a `#line` directive and
 * the original line's indentation restore the line and column of the text
 * that follows.  spelling is the file's name as the compiler would print it
 * (escaped here).  Returns 0, or -1 (logged) when edits overlap or lie
 * outside src, or the name cannot be written in a #line directive.
 */
int astra_edits_apply(struct astra_edits *e, const char *src, size_t len,
		      const char *spelling, struct astra_buf *out);

/*
 * Add the edits that substitute s->variant for s->kernel in src, the text of
 * the file that defines the kernel (spelled `spelling`).  extra is appended
 * inside the generated code (substitute.c uses it to prove a rewritten
 * header took effect); may be NULL.  Returns 0 or -1 (logged: a variant
 * whose definition cannot be found, a kernel without verified
 * architectures, a parameter list the launcher cannot repeat).
 */
int astra_rewrite_kernel(struct astra_edits *e, const char *src, size_t len,
			 const char *spelling, const struct astra_subst *s, const char *extra);

/*
 * Add the edits that turn the launch sites of s->kernel in the main file
 * (tu->launches, offsets into tu->text) into launcher calls.  Only for a
 * substitution with a launcher (astra_subst_has_launcher).  Sites that
 * cannot be rewritten keep the original launch, which stays correct: a site
 * whose text is not `name<<<...>>>(` (a macro argument), a site before the
 * kernel's definition, a launch from inside an annotated kernel (device
 * code).  Returns the number of sites rewritten.
 */
int astra_rewrite_launches(struct astra_edits *e, const struct astra_tu *tu, const struct astra_subst *s);

/* Is k defined in the main file (tu->text) rather than in a header? */
int astra_rewrite_in_main(const struct astra_tu *tu, const struct astra_kernel *k);

/* Does v bring its own launch geometry? */
int astra_variant_has_geometry(const struct astra_variant *v);

/* Do s's launch sites call a launcher (a variant with its own geometry, or shape dispatch)? */
int astra_subst_has_launcher(const struct astra_subst *s);

/*
 * Include directives of a file, for substitute.c: each quoted or angled
 * header name, with the byte range of the name including its delimiters.
 * `computed` counts `#include MACRO` forms (whose target is unknown).
 * Quoted names inside __has_include("...") are listed too (angle 0).
 */
struct astra_incref {
	size_t start, end;  /* the "name" or <name> token */
	char *name;         /* without delimiters */
	int angle;
};

struct astra_increfs {
	struct astra_incref *v;
	size_t nr, alloc;
	int computed;
};

void astra_increfs_scan(struct astra_increfs *inc, const char *src, size_t len);
void astra_increfs_release(struct astra_increfs *inc);

/* Names of the generated entities (malloc'd). */
char *astra_rewrite_variant_name(const char *kernel);
char *astra_rewrite_launcher_name(const char *kernel);

#endif
