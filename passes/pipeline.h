/*
 * pipeline.h - the annotated-compile path: extract, key, look up, substitute.
 *
 * The driver calls astra_pipeline_compile() for a single-.cu compile whose
 * source (or a project header it includes) mentions `#pragma astra`.
 */
#ifndef ASTRA_PIPELINE_H
#define ASTRA_PIPELINE_H

#include "lib/nvccopts.h"
#include "front/includes.h"

struct astra_buf;
struct astra_cache;
struct astra_entry;
struct astra_kernel;
struct astra_tu;

/*
 * The `optimize` policy on a miss: produce a verdict for (key, cc) of
 * kernel k now (arch: the target's name, nvcc_version: the key's), store
 * it in cache and return 1 with e filled, or return 0 (the kernel is then
 * queued for warmup, as in mode=use).  The build path never includes the
 * optimizer: the driver registers the loop's policy (agents/policy.h);
 * without one, mode=optimize behaves as mode=use.
 */
typedef int (*astra_pipeline_optimize_fn)(struct astra_cache *cache, struct astra_invocation *inv,
					  const struct astra_tu *tu, const struct astra_kernel *k, const char *arch,
					  const char *key, int cc, const char *nvcc_version, struct astra_entry *e);
void astra_pipeline_set_optimizer(astra_pipeline_optimize_fn fn);

/*
 * Compile inv, substituting verified variants where the cache has them.
 * Returns nvcc's exit status when this function ran nvcc itself, or -1 when
 * the caller must run the unmodified command (nothing to substitute, or any
 * failure of astra-cc's own work: the reason has been logged and counted).
 */
int astra_pipeline_compile(struct astra_invocation *inv);

/*
 * What compiling inv now would do, as text that changes whenever the
 * object would: the settings that matter, nvcc's identity, and for each
 * kernel the variant substituted and the architectures it is used on
 * (passes/ccache.c hands this to ccache).  Looks only: nothing is queued,
 * optimized or written.  inv->cl must model a single-.cu compile.  Appends
 * to out; returns 0.
 */
int astra_pipeline_describe(struct astra_invocation *inv, struct astra_buf *out);

/*
 * Queue kernel k of inv's compile for `astra-cc --warmup` under (key, cc):
 * its source, the current directory and the command line (counts
 * ASTRA_STAT_QUEUED).  Used on a miss and by capture builds.
 */
void astra_pipeline_queue_for_warmup(struct astra_cache *cache, const struct astra_invocation *inv,
				     const struct astra_kernel *k, const char *key, int cc);

/*
 * Cheap test, used before any parsing: does path, or a project header it
 * includes, contain `#pragma astra`?  Reads files, nothing else.  sp: the
 * command line's search path (astra_search_path_from_cmdline; may be NULL).
 */
int astra_pipeline_mentions_pragma(const char *path, const struct astra_search_path *sp);

#endif
