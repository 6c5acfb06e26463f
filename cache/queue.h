/*
 * queue.h - the warmup queue: kernels that missed in `use` mode.
 *
 * A build without a GPU (or in `use` mode) compiles the original kernel on a
 * miss and queues it here; `astra-cc --warmup` (on a GPU host) optimizes
 * what is queued, so the next build hits.  Each item records the compile
 * command that met the kernel, so the warmup can rebuild the same TU.
 *
 * One object per (key, cc) on the local tier: "<key>-<cc>.queue" (JSON),
 * written atomically.
 * Queueing the same kernel twice (32 parallel compiles of one TU) leaves one
 * item.  A file that does not parse is removed and skipped by
 * astra_cache_queue_list().
 */
#ifndef ASTRA_QUEUE_H
#define ASTRA_QUEUE_H

#include "lib/vec.h"
#include "cache/store.h"

#define ASTRA_QUEUE_FORMAT 1

struct astra_warmup_item {
	char *key;                /* 32 hex */
	int cc;                   /* the architecture the lookup was for */
	char *kernel;             /* kernel name */
	char *source;             /* the source file, as on the command line */
	char *cwd;                /* the directory the compile ran in */
	struct astra_vec argv;    /* the command: argv[0] = the real nvcc, then its arguments */
	long long queued;         /* seconds since the epoch (set by queue_add when 0) */
};

void astra_warmup_item_init(struct astra_warmup_item *it);
void astra_warmup_item_release(struct astra_warmup_item *it);

/*
 * Queue it (replacing an item for the same key and cc).  Counts QUEUED.
 * Returns 0, or -1 (logged and counted; the build goes on).
 */
int astra_cache_queue_add(struct astra_cache *c, struct astra_warmup_item *it);

/*
 * All queued items, oldest first, into a new array (*items, *nr) the
 * caller frees with astra_warmup_items_free.  Returns 0 (an empty or
 * missing queue is 0 items) or -1.
 */
int astra_cache_queue_list(struct astra_cache *c, struct astra_warmup_item **items, size_t *nr);
void astra_warmup_items_free(struct astra_warmup_item *items, size_t nr);

/* How many items are queued (a count of files; nothing is parsed). */
long long astra_cache_queue_length(struct astra_cache *c);

/* Remove the item for (key, cc) (done, or given up).  0 or -1. */
int astra_cache_queue_remove(struct astra_cache *c, const char *key, int cc);

#endif
