/*
 * canon.h - the same kernel in the wording the rules read: what people
 * write in many ways, rewritten into one, with the meaning unchanged.
 *
 * The rules match the wording of a first correct version
 * (`i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;`,
 * `for (j = tid; j < n; j += blockDim.x)`, `m = fmaxf(m, e)`).  Kernels in
 * the wild say the same things otherwise; astra_canon() rewrites, in the
 * kernel's body:
 *
 *   - uses of the file's macros (object-like and function-like, not the
 *     tunables and not type names) into their expansions, and the file's
 *     constants (`constexpr int kThreads = 256`) into their values;
 *   - calls of the file's __device__ functions into their bodies: a
 *     function that returns one expression becomes that expression, its
 *     parameters bound to the arguments (converted to the parameters'
 *     types); any other one (a block reduction) becomes a block in front
 *     of the statement that calls it, its result in a new local;
 *   - an index computed in several statements (`i = blockIdx.x *
 *     blockDim.x; i += threadIdx.x;`) into one declaration;
 *   - a body under `if (i < n) { ... }` into `if (i >= n) return; ...`,
 *     and `if (n <= i) return;` into `if (i >= n) return;`;
 *   - `if (C) { A; return; } REST` into `if (C) { A; } else { REST }`;
 *   - a `while` loop over a stride into a `for` loop;
 *   - a stride written as the block size's value (`j += 256` where every
 *     launch has 256 threads) into `blockDim.x`;
 *   - a maximum or minimum written with `if` or `?:` into fmaxf/fminf
 *     (max/min for integers).
 *
 * The rules engine calls it when a rule declines the text as it is
 * (rules/engine.c), so that a variant differs from the user's code only
 * where a rule needed it to.  Whatever it cannot prove equivalent it
 * leaves as written.
 */
#ifndef ASTRA_CANON_H
#define ASTRA_CANON_H

#include "rules/rule.h"

/*
 * Rewrite rk's text into the rules' wording.  Returns the number of
 * rewrites made (0: the text was in it already), or -1 on an internal
 * failure.  notes (may be NULL) gets one line per kind of rewrite made.
 */
int astra_canon(struct astra_rk *rk, struct astra_buf *notes);

/*
 * Only the maxima and minima (a rule that reads reductions calls it on
 * its own copy): the number of rewrites, or -1.
 */
int astra_canon_minmax(struct astra_rk *rk);

#endif
