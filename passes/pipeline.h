/*
 * pipeline.h - the annotated-compile path: extract, key, look up, substitute.
 *
 * The driver calls astra_pipeline_compile() for a single-.cu compile whose
 * source (or a project header it includes) mentions `#pragma astra`.
 */
#ifndef ASTRA_PIPELINE_H
#define ASTRA_PIPELINE_H

#include "astra-cc/driver.h"
#include "passes/includes.h"

/*
 * Compile inv, substituting verified variants where the cache has them.
 * Returns nvcc's exit status when this function ran nvcc itself, or -1 when
 * the caller must run the unmodified command (nothing to substitute, or any
 * failure of astra-cc's own work: the reason has been logged and counted).
 */
int astra_pipeline_compile(struct astra_invocation *inv);

/*
 * Cheap test, used before any parsing: does path, or a project header it
 * includes, contain `#pragma astra`?  Reads files, nothing else.  sp: the
 * command line's search path (astra_search_path_from_cmdline; may be NULL).
 */
int astra_pipeline_mentions_pragma(const char *path, const struct astra_search_path *sp);

#endif
