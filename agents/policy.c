/*
 * policy.c - mode=optimize on a miss (see policy.h).
 *
 * Apart from the loop because it is the build's side of it: the per-kernel
 * lock that makes `make -j32` optimize each kernel once, the second lookup
 * after waiting, storing the verdict.
 */
#include "autoconfig.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/captured.h"
#include "agents/evidence.h"
#include "agents/loop.h"
#include "agents/policy.h"
#include "cache/lock.h"
#include "cache/stats.h"
#include "cache/store.h"
#include "lib/config.h"
#include "lib/log.h"
#include "verify/gpu.h"

/*
 * `optimize` without a GPU behaves as `use` and says so in the log once
 * (a marker file in the cache directory remembers that it was said).
 */
static void note_no_gpu_once(struct astra_cache *cache)
{
	static const char marker[] = "optimize-without-gpu.noted";
	struct astra_storage *s = astra_cache_local(cache);
	if (s->ops->head(s, marker, NULL) == 0 && s->ops->put(s, marker, "", 0) == 0)
		warning("mode=optimize, but this machine has no GPU: kernels are queued for "
			"`astra-cc --warmup` as in mode=use (said once; remove %s/%s to hear it again)", s->url,
			marker);
}

/*
 * `optimize` on a miss: run the loop now, under the kernel's lock, if this
 * machine's GPU is the architecture the lookup was for.  Returns 1 when a
 * verdict is now in the cache (*e filled), else 0.
 */
int astra_policy_optimize_now(struct astra_cache *cache, struct astra_invocation *inv, const struct astra_tu *tu,
			      const struct astra_kernel *k, const char *arch, const char *key, int cc,
			      const char *version, struct astra_entry *e)
{
	static int gpu_known, gpu_cc;
	struct astra_cache_lock lk = ASTRA_CACHE_LOCK_INIT;
	struct astra_loop_opts lo = { 0 };
	struct astra_loop_result res;
	struct astra_captured_info ci;
	struct astra_kernel kc;
	int got;

	if (!gpu_known) {
		struct astra_gpu g;
		gpu_cc = astra_gpu_probe(inv->nvcc, &g) ? g.cc : 0;
		gpu_known = 1;
	}
	if (!gpu_cc) {
		note_no_gpu_once(cache);
		return 0;
	}
	if (gpu_cc != cc)
		return 0;
	got = astra_cache_lock(cache, key, cc, (double)astra_config_int(ASTRA_CFG_LOCK_WAIT), &lk);
	if (got <= 0) {
		if (got == 0)
			astra_stats_inc(ASTRA_STAT_LOCK_TIMEOUTS);
		return 0;
	}
	/* Another process may have finished while this one waited. */
	if (astra_cache_lookup(cache, key, cc, e) == 1) {
		astra_cache_unlock(&lk);
		return 1;
	}
	/* Complete the test description from the kernel's capture, if it has one (agents/captured.h). */
	astra_captured_info_init(&ci);
	if (astra_captured_kernel(cache, key, cc, k, &kc, &ci) < 0) {
		astra_log(ASTRA_LOG_INFO, "%s:%u: %s", k->file, k->line, ci.missing);
		astra_captured_info_release(&ci);
		astra_captured_kernel_release(&kc);
		astra_cache_unlock(&lk);
		return 0;
	}
	astra_captured_info_release(&ci);
	k = &kc;
	lo.nvcc = inv->nvcc;
	astra_loop_run(tu, k, &inv->cl, &lo, &res);
	if (res.verdict != ASTRA_VERDICT_NONE) {
		e->key = xstrdup(key);
		e->cc = cc;
		e->kernel = xstrdup(k->name);
		e->file = xstrdup(k->file);
		e->line = k->line;
		astra_entry_add_input(e, "arch", arch);
		astra_entry_add_input(e, "nvcc", version);
		astra_loop_fill_entry(&res, &lo, e);
		astra_evidence_fill(e, &res, k);
		free(e->nvcc_version);
		e->nvcc_version = xstrdup(version);
		astra_cache_store(cache, e, res.transcript, res.transcript ? strlen(res.transcript) : 0);
	}
	astra_cache_unlock(&lk);
	astra_loop_result_release(&res);
	astra_captured_kernel_release(&kc);
	return e->verdict != ASTRA_VERDICT_NONE;
}
