/*
 * withvariant.h - `astra-cc --with-variant NAME=FILE ... -- NVCC ARGS...`
 *
 * An inspection and testing command: compile one nvcc command with a
 * hand-written variant FILE substituted for kernel NAME, exactly as a
 * cache hit would (substitute.h), but without the verifier: the variant
 * only passes the static gate every candidate passes
 * (astra_extract_candidate: same signature, nothing but the kernel and
 * device helpers) and is otherwise trusted as written.  It is how the substitution tests build programs
 * with a variant that keeps the geometry and one that changes it, and how
 * a person can look at the rewritten source (--save DIR).
 *
 *   --with-variant NAME=FILE   (repeatable) the variant's text: the kernel's
 *                              definition and any __device__ helpers; a
 *                              `#pragma astra launch(grid=..., block=...,
 *                              shmem=...)` line gives it its own geometry
 *   --cc LIST                  compute capabilities to treat as verified
 *                              (90 or 80,90); default: every sm_XX the
 *                              command compiles for
 *   --save DIR                 copy the rewritten sources into DIR (files
 *                              that exist there are not overwritten)
 *
 * If substitution fails the command says so on stderr and compiles the
 * original, so it never breaks a build that nvcc would pass.
 */
#ifndef ASTRA_WITHVARIANT_H
#define ASTRA_WITHVARIANT_H

/*
 * The command (a row of astra-cc/commands.c): argv[0] is "--with-variant",
 * the options above, "--", then the nvcc command (the real compiler and its
 * arguments).  Returns the exit status.
 */
int astra_with_variant(int argc, char **argv);

#endif
