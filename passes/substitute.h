/*
 * substitute.h - compile a translation unit with verified variants in
 * place of annotated kernels, so that nobody can tell (DESIGN.md section 3,
 * invariants 1, 3 and 5).
 *
 * The rewritten sources (rewrite.h) are written to a private temporary
 * directory named after the command ($TMPDIR/astra-cc-workspaces-UID/DIGEST, so that
 * identical builds give identical objects; see substitute.c) and nvcc runs
 * on them instead of the original: the user's command line with only the input argument replaced,
 * plus a few options at the end.  What the user can observe is made to name
 * the original file exactly as plain nvcc would:
 *
 *  - Line numbers and __FILE__: `#line` directives (rewrite.h).
 *  - Quoted includes: GCC resolves "x.h" relative to the directory of the
 *    file it actually opened, which is now the temporary one.  Every quoted
 *    include of a rewritten file that plain nvcc would find next to the
 *    original is therefore pinned to that file by an absolute path: the
 *    original's directory when it is absolute, else `$PWD/./DIR/x.h`.  The
 *    `/./` makes the spelling unique, so it can be mapped back exactly to
 *    the `DIR/x.h` that plain nvcc prints, in the dependency file, in
 *    messages, and (through -ffile-prefix-map) in __FILE__, __BASE_FILE__
 *    and host debug info.  Includes not found there are left alone and
 *    follow the user's -I path exactly as before.  No -iquote is added, so
 *    every other header resolves exactly as in plain nvcc.
 *  - cudafe++ and cicc are told the original's name and path
 *    (-Xcudafe --orig_src_file_name=...,--orig_src_path_name=...), which is
 *    what device debug info names.
 *  - Dependency files (-MD, -MMD, -MF, -MT, -MP): nvcc writes to a private
 *    file; the temporary names are mapped back, the duplicate that #line
 *    introduces is dropped, and the result is written where plain nvcc
 *    would have written it, byte for byte what plain nvcc writes.
 *  - The compile's stdout and stderr are captured; on success they are
 *    replayed (stdout, then stderr) with temporary names mapped back.
 *
 * What remains different (doc/substitution.md): device debug info and
 * -lineinfo name a pinned header `$PWD/./h.cuh` rather than `$PWD/h.cuh`
 * (the same file); in -G/-lineinfo builds the fatbinary's module
 * identifier names the rewritten file (at a path fixed per command);
 * stdout and stderr are no longer interleaved; -res-usage reports the
 * generated launcher's variant too.
 *
 * A signal during the compile (^C) stops it as it stops nvcc: astra-cc
 * ends with nvcc's status and does not compile the original instead.
 *
 * Kernels defined in a project header: the header is rewritten into its own
 * temporary directory (with `#line 1 "inc/h.cuh"` and its own quoted
 * includes pinned the same way) and the main file's #include of it is
 * redirected to the copy.  The header must be included directly by the
 * main file; if the copy does not take effect (an include guard already
 * satisfied by another path) the compile fails on purpose and the original
 * is compiled instead.
 */
#ifndef ASTRA_SUBSTITUTE_H
#define ASTRA_SUBSTITUTE_H

#include "lib/buf.h"
#include "lib/nvccopts.h"
#include "passes/rewrite.h"

struct astra_subst_opts {
	/* Also copy the rewritten sources into this directory (inspection). */
	const char *save_dir;
	/*
	 * More edits of the main file, added after the substitutions' (a
	 * capture build's launchers, passes/capture.h); returns 0 or -1.  With
	 * it, astra_subst_compile() also runs when nr is 0.
	 */
	int (*edit_main)(struct astra_edits *e, const struct astra_tu *tu, void *data);
	void *edit_data;
};

/*
 * Compile inv with the substitutions subs[0..nr) applied to tu (the parsed
 * main file of inv).  Returns nvcc's exit status (0) when the rewritten
 * compile succeeded; its output has then been replayed and its dependency
 * file written.  Returns nvcc's (non-zero) status when a signal stopped
 * the compile; its output has been replayed and the caller must end with
 * that status (when nvcc itself was killed, astra-cc is killed by the same
 * signal and this does not return).  Returns -1 when the caller must run
 * the unmodified command instead; nothing has been printed.  Counts ASTRA_STAT_SUBSTITUTIONS (nr)
 * on success, ASTRA_STAT_FALLBACK_REWRITE when nvcc rejected the rewritten
 * TU, ASTRA_STAT_FALLBACK_INTERNAL for any other failure (logged).
 * opts may be NULL.
 */
int astra_subst_compile(struct astra_invocation *inv, const struct astra_tu *tu,
			const struct astra_subst *subs, size_t nr, const struct astra_subst_opts *opts);

/*
 * Spellings to map back: a name equal to `from`, or starting with `from`
 * when `from` ends with '/', is replaced by `to` (plus the rest).
 */
struct astra_pathmap {
	struct astra_vec from, to;
};

void astra_pathmap_init(struct astra_pathmap *m);
void astra_pathmap_add(struct astra_pathmap *m, const char *from, const char *to);
void astra_pathmap_release(struct astra_pathmap *m);

/*
 * Rewrite a dependency file written by nvcc (its format: `target : dep \`
 * then one `    dep \` per line, then, with -MP, a `dep:` paragraph for every
 * dependency but the first): map every name, drop names seen before, and
 * regenerate the text.  Appends to out; returns 0, or -1 when the text is
 * not in that format.
 */
int astra_subst_fix_deps(const char *text, size_t len, const struct astra_pathmap *map,
			 struct astra_buf *out);

/* Replace every occurrence of a `from` by its `to` in compiler messages. */
void astra_subst_map_text(const char *text, size_t len, const struct astra_pathmap *map,
			  struct astra_buf *out);

/*
 * Where nvcc writes the dependency file when no -MF is given: the output
 * (-o) with its extension replaced by .d, else the input's basename with
 * .d, in the current directory.  Returns NULL when the model cannot tell
 * (-odir).  Caller frees.
 */
char *astra_subst_default_depfile(const struct astra_cmdline *cl);

/*
 * The workspace of a substituted compile: TMPDIR/astra-cc-workspaces-UID/DIGEST, named
 * after the command, with its lock DIGEST.lock (a killed compile's is
 * emptied and reused by the next run of the same command), or, when that
 * one is in use or cannot be had, TMPDIR/astra-cc.XXXXXX (see
 * lib/workspace.h); removed afterwards.  Those of killed compiles are
 * swept once they are a day old (a named one only when its lock is free),
 * at most once an hour (the stamp is a file of the cache directory's) and
 * by astra-cc --cleanup.
 */
#define ASTRA_SUBST_WORKSPACE "astra-cc."
#define ASTRA_SUBST_SWEEP_STAMP "workspaces-swept"

/*
 * Sweep both kinds of workspaces of killed compiles unchanged for age
 * seconds (astra_workspace_sweep_locked, astra_workspace_sweep).  Returns
 * how many were removed.
 */
long astra_subst_sweep_workspaces(long long age);

#endif
