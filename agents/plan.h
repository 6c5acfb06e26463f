/*
 * plan.h - warmup on a cluster: a plan of work items, one job array.
 *
 * A cluster's scheduler (Slurm) runs the work, not astra-cc: astra-cc
 * writes the list of work items and a job script, each array task runs
 * one item, and a last command gathers the results (doc/cluster.md).
 *
 *   astra-cc --warmup --plan FILE [--arch sm_XX] [--gres SPEC|none] [-p DIR | FILE.cu... -- FLAGS]
 *       extracts the kernels (in parallel, as warmup does), computes each
 *       one's key for sm_XX (default: this machine's GPU, else sm_90),
 *       looks it up in the cache (the local tier, then the shared
 *       `remote_storage` tiers), and writes FILE: one item per kernel key
 *       that no tier has yet, numbered from 0.  Also FILE.sbatch (a job
 *       array: `--array=0-(N-1)`, `--gres=gpu:1` or --gres's SPEC, none
 *       with `--gres none` for a partition without GPU gres, each task
 *       running its item) and the directories FILE.d/results and
 *       FILE.d/logs.
 *   astra-cc --warmup --item N --plan FILE
 *       runs item N: on a GPU, the optimization loop, storing the verdict
 *       in every writable tier (the shared remote one included); without
 *       one, what warmup does without a GPU (candidates generated and
 *       compiled, nothing verified or stored).  Writes the item's row to
 *       FILE.d/results/item-N.json.  Idempotent: an item whose key is in
 *       the cache, or whose result is already written (for a run without
 *       a GPU: any result; with a GPU: a verdict), does nothing, so a
 *       failed array can simply be submitted again.
 *   astra-cc --warmup --report --plan FILE [--json OUT]
 *       gathers every item's result (else the cache's entry, else
 *       "pending") and prints warmup's table, then what the results
 *       leave to do (items pending; items run on a node without a GPU).
 *       Exit status 1 while items are pending.
 *
 * FILE and FILE.d must be on a file system that every node sees; the
 * verdicts travel through the shared remote cache.
 */
#ifndef ASTRA_PLAN_H
#define ASTRA_PLAN_H

#include "agents/warmup.h"

/*
 * --plan FILE: rq says what to plan (files, -p, --arch); the work is
 * astra_warmup_run's.  gres: the job script's `--gres` (NULL: gpu:1;
 * "none": no --gres line); check it first with astra_plan_gres_ok().
 */
int astra_plan_make(struct astra_warmup_request *rq, const char *plan, const char *gres);

/* Is s a --gres value for an #SBATCH line ("none", or name[:type]:count...)?  1 or 0. */
int astra_plan_gres_ok(const char *s);

/* --item N --plan FILE: rq supplies nvcc, --rounds, --progress. */
int astra_plan_item(struct astra_warmup_request *rq, const char *plan, long n);

/* --report --plan FILE [--json OUT]. */
int astra_plan_report(const char *plan, const char *json_out);

#endif
