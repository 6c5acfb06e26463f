/*
 * trees.h - the shared-memory tree reductions warp-reduce finds
 * (`red[tid] = v; __syncthreads(); for (s = blockDim.x / 2; ...)`), for the
 * rules that move a block's rows onto warps.
 */
#ifndef ASTRA_TREES_H
#define ASTRA_TREES_H

#include "rules/rule.h"

/*
 * Find the tree reductions of rk's text and put into *edits (initialized
 * by the call) a warp's reduction in place of each, for a kernel about to
 * run a row per warp: `{ T r = wred(v); if (astra_lane == 0)
 * red[astra_w * (N)] = r; } __syncwarp();` (the caller gives every warp
 * its own slice of N elements of each shared array red[N]).  Adds the helpers used to
 * *helpers.  Returns the number of trees, or -1 when rk does not parse.
 */
int astra_trees_warp_rows(struct astra_rk *rk, struct astra_syn_edits *edits, unsigned *helpers);

#endif
