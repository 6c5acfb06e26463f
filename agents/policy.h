/*
 * policy.h - mode=optimize: optimize a missed kernel during the build.
 *
 * The driver registers astra_policy_optimize_now with the build path
 * (astra_pipeline_set_optimizer): on a miss for (key, cc), if this
 * machine's GPU is that architecture, take the kernel's lock (waiting up to
 * `lock_wait` seconds for another process optimizing it), look up again,
 * run the loop, store the verdict.  Without a GPU it says so once in the
 * log and returns 0 (the kernel is queued, as in mode=use).
 */
#ifndef ASTRA_POLICY_H
#define ASTRA_POLICY_H

#include "passes/pipeline.h"

int astra_policy_optimize_now(struct astra_cache *cache, struct astra_invocation *inv, const struct astra_tu *tu,
			      const struct astra_kernel *k, const char *arch, const char *key, int cc,
			      const char *version, struct astra_entry *e);

#endif
