/*
 * ccache.h - astra-cc run by ccache: `ccache astra-cc ...`, `make
 * NVCC="ccache astra-cc"`, CMake's CMAKE_CUDA_COMPILER_LAUNCHER=ccache with
 * CMAKE_CUDA_COMPILER=astra-cc (doc/ccache.md).
 *
 * ccache decides from the preprocessed source whether it holds the object
 * already, but the object of an annotated file also depends on astra-cc's
 * cache (which variant is substituted) and settings (disable, mode=off).
 * So when ccache asks astra-cc to preprocess an annotated file, astra-cc
 * adds what it would substitute to the preprocessed text, which ccache
 * hashes: a stored or removed variant, or a changed setting, changes
 * ccache's key.  The added text starts with a line marker naming a file
 * that cannot exist, which turns ccache's direct mode off for that file
 * (direct mode would reuse the object without asking astra-cc; ccache then
 * uses its preprocessor mode, which asks every time).  ccache's depend
 * mode never asks; under it astra-cc compiles the original (logged), so
 * that no object with a variant is ever cached where astra-cc cannot
 * answer for it, and adds /dev/null to the dependency file, the one thing
 * ccache reads in that mode: a prerequisite that is not a regular file
 * turns ccache's direct mode off, so it records no manifest entry.  (Its
 * entry for the original's object used to serve later default-mode builds
 * by direct mode, whatever variant was stored: issue 28.)
 */
#ifndef ASTRA_CCACHE_H
#define ASTRA_CCACHE_H

#include "lib/nvccopts.h"

/* The path of the parent process when it is ccache, else NULL (malloc'd). */
char *astra_ccache_parent(void);

/* Is inv a preprocessor run (-E) of one .cu file, as ccache makes it? */
int astra_ccache_is_preprocess(const struct astra_invocation *inv);

/*
 * Run the preprocessor command inv (nvcc -E ...) and, when it succeeds,
 * append the description of the matching compile (astra_pipeline_describe)
 * to its output (the -o file, or stdout).  Returns nvcc's exit status.
 */
int astra_ccache_preprocess(struct astra_invocation *inv);

/*
 * Will ccache (the program at path) cache the compile inv in its depend
 * mode (depend_mode set, and the command writes a dependency file)?
 */
int astra_ccache_depend_mode(const char *ccache, const struct astra_invocation *inv);

/*
 * The compile inv under ccache's depend mode: run the unmodified command
 * and, when it succeeds, add /dev/null to the first rule of the
 * dependency file it wrote (see above; make and Ninja see a prerequisite
 * that always exists and never changes).  Returns nvcc's exit status.
 */
int astra_ccache_depend_compile(struct astra_invocation *inv);

#endif
