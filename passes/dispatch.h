/*
 * dispatch.h - the host-side choice of a shape-dispatched kernel: which
 * of its versions a launch runs, from the launch's own arguments.
 *
 * A shape-dispatched cache entry (cache/manifest.h, format 2) holds
 * several verified variants and, for every shape the loop measured, the
 * values of the kernel's scalar parameters at that shape and the version
 * that won there (0: the original; i: variant i).  The generated host
 * launcher (rewrite.h) calls a choice function emitted here, then launches
 * that version.  The choice is a pure function of the arguments: no
 * timing, no state, no tables filled at run time; the generated text
 * depends only on the entry, so builds stay deterministic.
 *
 * The rule: a launch runs the version that won at the *nearest measured
 * shape*, nearness being the Euclidean distance between the logarithms of
 * the parameters that tell the measured shapes apart (a parameter with
 * one value at every measured shape cannot matter and is not read).
 * Values below 1 count as 1.  A launch exactly as far from two measured
 * shapes goes to the one that comes later in ascending order of values
 * (the larger one: serving time is spent at the large shapes).  So a
 * launch at a measured shape runs its winner; one between two measured
 * shapes runs the winner of the nearer; one outside every measured region
 * runs the winner of the nearest measured shape, which may be the
 * original.
 *
 * Why logarithms of each parameter.  Which code wins depends on the scale
 * of the work (a launch-bound decode step against a bandwidth-bound
 * prefill) much more than on its exact size, and the regimes are
 * multiplicative: 8 tokens are as far from 1 as 1024 are from 128.  The
 * logarithm makes the distance a ratio, so that a parameter counted in
 * thousands (a hidden size) does not drown one counted in units (tokens),
 * and along one parameter the midpoint between two measured values a and b
 * is their geometric mean sqrt(a * b).  Each parameter separately rather
 * than the bytes a launch moves: the launcher can compute the parameters
 * (they are its arguments) while the bytes come from buffers() expressions
 * of names it may not have; and two shapes that move the same bytes can
 * differ in the way that decides (a row-wise kernel with many short rows
 * against few long ones), which one number would hide.
 *
 * The emitted function: with one parameter to read, thresholds at the
 * geometric means between neighbouring measured values where the winner
 * changes (comparisons only: a few nanoseconds); with several, the
 * nearest of the measured shapes in log space (one log() per parameter,
 * then a small loop over constant tables).
 */
#ifndef ASTRA_DISPATCH_H
#define ASTRA_DISPATCH_H

#include <stddef.h>

#include "lib/buf.h"
#include "cache/manifest.h"

/*
 * The choice, as the launcher needs it: the parameters it reads and, for
 * each distinct measured shape, their values and the version that runs.
 * Points are kept in ascending lexicographic order of values.
 */
struct astra_dispatch {
	char **params;          /* names of the kernel parameters read */
	size_t nr_params;
	double *values;         /* [point * nr_params + p] */
	int *choice;            /* per point: 0 the original, i variant i */
	size_t nr_points;
	int nr_versions;        /* 1 + the number of variants */
};

/*
 * Build d from a shape-dispatched entry: drop the parameters whose value is
 * the same at every measured shape, merge shapes with equal values (they
 * have the same choice: the entry is checked).  Returns 0, or -1 with *why
 * (not a variant set, or inconsistent).
 */
int astra_dispatch_from_entry(struct astra_dispatch *d, const struct astra_entry *e, const char **why);

void astra_dispatch_release(struct astra_dispatch *d);

/* Do two choices say the same (same parameters, shapes and choices)? */
int astra_dispatch_equal(const struct astra_dispatch *a, const struct astra_dispatch *b);

/*
 * The version a launch with these values (one per d->params) runs: the
 * rule above, computed exactly as the emitted function computes it.
 */
int astra_dispatch_choose(const struct astra_dispatch *d, const double *values);

/*
 * Append the C++ choice function
 *     static inline int NAME(double __astra_x0, ...)
 * (one double per d->params, in order) to out.  Returns 0.
 */
int astra_dispatch_emit(const struct astra_dispatch *d, const char *name, struct astra_buf *out);

/*
 * Append a description of the regions for people (astra-cc --show-entry):
 * with one parameter, the intervals and the version each runs; with
 * several, the rule and the measured shapes.  names[i] names version i.
 */
void astra_dispatch_describe(const struct astra_dispatch *d, const char *const *names, struct astra_buf *out);

#endif
