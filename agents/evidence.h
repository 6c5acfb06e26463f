/*
 * evidence.h - what a cache entry keeps so that a person can check it
 * later: the evidence of the run that decided its verdict, the loop's own
 * figures, and the original kernel's text and launch geometry.
 *
 * The report (astra-cc/cmd-report.h) shows these; the compile path never reads
 * them.  They live in the manifest's `extra` object (cache/manifest.h)
 * rather than in new typed fields, so that the cache stays ignorant of the
 * agents' types and an entry written before them still reads: its report
 * shows what its manifest has.  Members (doc/report.md has the details):
 *
 *   extra.original   text, grid, block, shmem: the kernel's definition as
 *                    optimized and the pragma's launch geometry
 *   extra.variant_launch  grid, block, shmem: the variant's own geometry
 *                    (absent: it keeps the original's)
 *   extra.loop       rounds, tried, compiled, accepted, speedup_largest,
 *                    baseline_us, best_us, baseline_bw_frac, best_bw_frac,
 *                    gpu_wait_seconds, log[] (one line per attempt)
 *   extra.evidence   run ("confirmation" or "last"), seed, distributions[],
 *                    device{}, checks{}, variant{}, cases[], notes[]
 *
 * The seed also goes into the manifest's own `seeds` list.
 */
#ifndef ASTRA_EVIDENCE_H
#define ASTRA_EVIDENCE_H

#include "agents/loop.h"
#include "cache/manifest.h"
#include "front/kernel.h"

/*
 * Add res's evidence and k's original text (k may be NULL) to e, after
 * astra_loop_fill_entry() filled the rest.  Keeps members of e->extra it
 * does not write.
 */
void astra_evidence_fill(struct astra_entry *e, const struct astra_loop_result *res,
			 const struct astra_kernel *k);

/* The evidence of one verifier run as JSON (a new object; the format of extra.evidence). */
struct astra_json *astra_evidence_json(const struct astra_verify_result *v, int confirmation);

#endif
