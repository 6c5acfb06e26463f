/*
 * captured.h - test shapes from captured launches (doc/capture.md).
 *
 * The verifier tests a kernel with what its pragma describes.  A kernel
 * whose pragma leaves its description to a capture (`#pragma astra
 * optimize` alone: front/pragma.h, astra_pragma_by_capture) is described
 * here from the launches a capture build recorded (cache/capture.h); a
 * kernel with a full pragma gets the captured shapes' scalar values as
 * extra shapes.  The result is an ordinary pragma, so that the verifier,
 * the rules and the evidence need nothing new:
 *
 *   shapes    the largest captured shape (by bytes), then the most
 *             launched ones, and the smallest, up to capture_test_shapes;
 *             each gives every scalar parameter its captured value (exact:
 *             floats as the shortest decimal that reads back to the same
 *             bits, other types as their bytes) and is labelled with where
 *             it came from (`astra_source`);
 *   buffers   each pointer's element count: an expression of the scalars
 *             when one fits every captured shape (rows*cols), else the
 *             captured count per shape (`astra_n_<name>`); with
 *             capture_data, the captured inputs (`astra_data_<name>`, a
 *             path the test program reads in an extra trial);
 *   outputs   the pragma's outputs() when given; else every non-const
 *             pointer whose checksum changed in some captured launch
 *             (in-place buffers included), and those never measured; a
 *             pointer measured unchanged in every launch is an input (if
 *             the kernel does write it, with the same values, the
 *             verifier's input check on the original says so);
 *   launch    block and shared memory as literals when every shape has
 *             the same, the grid as the simplest expression of the
 *             scalars that gives every captured grid (rows,
 *             (n + 255) / 256, ...), else per-shape values;
 *   types     the captured template arguments, unless types() is given.
 *
 * Inferred outputs, launch and aliasing are shown to the user by
 * `astra-cc --list-kernels` (info.notes) for confirmation: writing the
 * clause into the pragma makes it final.
 */
#ifndef ASTRA_CAPTURED_H
#define ASTRA_CAPTURED_H

#include "lib/vec.h"
#include "front/kernel.h"

struct astra_cache;

struct astra_captured_info {
	int by_capture;          /* the pragma leaves the description to a capture */
	int have_capture;        /* a capture of the kernel was found */
	long long launches, runs, dropped;
	long long failed;        /* launches that failed, not recorded */
	size_t nr_captured;      /* distinct shapes captured */
	size_t nr_used;          /* captured shapes added to the test */
	size_t nr_pragma;        /* shapes the pragma gave */
	struct astra_vec shapes; /* one line per test shape, with its source */
	struct astra_vec notes;  /* what was inferred, for confirmation */
	struct astra_vec advice; /* clauses no run proves that would let more through ("#pragma astra noalias") */
	char *missing;           /* why the kernel cannot be tested, and how to capture it */
};

void astra_captured_info_init(struct astra_captured_info *info);
void astra_captured_info_release(struct astra_captured_info *info);

/*
 * Fill *out with a copy of k whose pragma is completed from k's capture
 * under (key, cc), as described above.  The copy shares everything with k
 * but its pragma (release it with astra_captured_kernel_release, never
 * astra_kernel_release).  Returns 1 when the copy can be tested, 0 when it
 * can too and no capture was involved, -1 when it cannot be tested: the
 * pragma leaves the description to a capture and there is none usable
 * (info->missing says how to make one; *out is then a plain copy).
 */
int astra_captured_kernel(struct astra_cache *cache, const char *key, int cc, const struct astra_kernel *k,
			  struct astra_kernel *out, struct astra_captured_info *info);
void astra_captured_kernel_release(struct astra_kernel *copy);

#endif
