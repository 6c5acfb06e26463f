/*
 * capture.h - a capture build: compile the launch sites of annotated
 * kernels through generated launchers that record the launches of the
 * program (doc/capture.md).
 *
 * With the `capture` setting (ASTRA_CC_CAPTURE=1, or astra-cc --capture),
 * an annotated compile does not look up or substitute variants.  For each
 * annotated kernel defined in the main file it computes the kernel's key
 * for every target of the command (the keys a later warmup computes), queues
 * the kernel for warmup, and compiles the TU with
 *
 *   - the recorder (capture-rt.cuh) at the top of the file, once;
 *   - after the kernel, a launcher `__astra_launch_<name>(params...)` that
 *     takes the site's configuration the way substitution's launchers do
 *     (rewrite.h: the pending configuration, then the arguments), hands the
 *     launch to the recorder, and launches the original kernel with the
 *     site's own grid, block, shared memory and stream;
 *   - every launch site of the kernel in the main file calling it
 *     (astra_rewrite_launches).
 *
 * The records go next to "<key>-<cc>.capture" in the cache directory the
 * build used (cache/capture.h).  A normal build never includes any of this.
 * Kernels that cannot be captured keep their plain launches (logged): a
 * kernel defined in a header, inside an `extern "C" { }` block, with a
 * parameter pack or a template template parameter, with a parameter type a
 * launcher cannot repeat, or without a launch site in the file.  As any
 * compile through astra-cc, a failure compiles the original command.
 */
#ifndef ASTRA_PASSES_CAPTURE_H
#define ASTRA_PASSES_CAPTURE_H

#include "lib/buf.h"
#include "lib/nvccopts.h"
#include "front/kernel.h"
#include "passes/substitute.h"

/* The recorder's text (generated from passes/capture-rt.cuh at build time). */
extern const char astra_capture_runtime[];

/* Where one target's records go. */
struct astra_capture_target {
	const char *key;        /* 32 hex */
	int cc;
	const char *prefix;     /* path of "<key>-<cc>.capture" (cache/capture.h) */
	int device_only;        /* one of nvcc's default target's: recorded where the device is of cc */
};

/* The recorder's limits, from the capture settings. */
struct astra_capture_limits {
	int max_shapes;
	int data;
	long long data_max;
};

/*
 * Append the launcher of kernel k (the text inserted after its definition)
 * to out.  Returns 0, or -1 with the reason in why (the kernel cannot be
 * captured; see above).
 */
int astra_capture_launcher(const struct astra_kernel *k, const struct astra_capture_target *targets, size_t nr,
			   const struct astra_capture_limits *lim, struct astra_buf *out, struct astra_buf *why);

/*
 * Compile inv as a capture build (tu: its parsed main file).  Returns
 * nvcc's exit status when the capture compile ran, or -1 when the caller
 * must run the unmodified command (nothing to capture, or a failure:
 * logged).  opts may be NULL (only save_dir is used).
 */
int astra_capture_compile(struct astra_invocation *inv, const struct astra_tu *tu,
			  const struct astra_subst_opts *opts);

#endif
