/*
 * optimizer.h - the interface every optimizer implements (rules, LLM).
 *
 * The loop (agents/loop.c) owns the rounds: each round it asks every
 * enabled optimizer for candidates, batches them into one test program,
 * verifies and times them, and records the outcome in the history that the
 * next round's optimizers see.  Optimizers never run kernels themselves.
 */
#ifndef ASTRA_OPTIMIZER_H
#define ASTRA_OPTIMIZER_H

#include "front/kernel.h"
#include "lib/buf.h"
#include "verify/profile.h"

/* One earlier candidate and what became of it. */
struct astra_attempt {
	char *origin;         /* "rules: vectorize", "llm: gpt-x" */
	char *text;           /* the candidate's text */
	int compiled;         /* 0: did not compile */
	int accepted;         /* passed verification */
	char *reason;         /* why not, as the verifier or compiler said it */
	double speedup;       /* baseline time / candidate time (geometric mean over shapes), 0 unknown */
};

struct astra_opt_context {
	const struct astra_tu *tu;
	const struct astra_kernel *kernel;
	const struct astra_cmdline *cl;      /* the TU's nvcc command (flags for compiles) */
	const struct astra_profile *baseline; /* largest shape; NULL before the first profile */
	const struct astra_attempt *history;
	size_t nr_history;
	const struct astra_variant *best;    /* best accepted so far, NULL: the original */
	int round;                           /* 0-based */
	int cc;                              /* compute capability of the GPU judged on (90), 0 unknown */
	/*
	 * Compile one candidate alone (nvcc, the TU's flags) without running
	 * it; compiler messages go to errors.  Returns 0 when it compiles.
	 * Optimizers that repair their own output (the LLM) use it.
	 */
	int (*try_compile)(void *loop, const struct astra_variant *v, struct astra_buf *errors);
	void *loop;
};

/*
 * One optimizer, as its kind's new() makes it.  Lifecycle: new, then
 * propose once per round (for one kernel or several in turn), then free.
 */
struct astra_optimizer {
	const char *name;     /* "rules", "llm" */
	/*
	 * Append up to max candidates for this round to out (initialized by
	 * the callee; the caller releases them).  Returns how many, or -1 on a
	 * failure of the optimizer itself (logged and counted; the loop goes on
	 * with the other optimizers).
	 */
	int (*propose)(struct astra_optimizer *self, const struct astra_opt_context *ctx,
		       struct astra_variant *out, size_t max);
	/* Free everything new() made, self included. */
	void (*free)(struct astra_optimizer *self);
	void *state;
	/*
	 * Optional (NULL when the optimizer keeps none): the record of how the
	 * current kernel's candidates were made - for the LLM, every request
	 * and response of its rounds as a JSON array, secrets redacted - to be
	 * stored with the cache entry.  malloc'd; NULL when there is nothing.
	 * Valid after the last round of a kernel, before the next kernel's
	 * round 0.
	 */
	char *(*transcript)(struct astra_optimizer *self);
};

/*
 * The table of optimizers (agents/optimizers.c), in the order the loop
 * asks them each round.  Entry i is bit 1 << i of a set.  new() configures
 * the optimizer from the settings and never fails: an optimizer that
 * cannot work (an LLM without a model) says why from propose().
 */
struct astra_optimizer_kind {
	const char *name;
	struct astra_optimizer *(*new)(void);
};

enum astra_optimizer_set {
	ASTRA_OPTIMIZERS_RULES = 1 << 0,
	ASTRA_OPTIMIZERS_LLM = 1 << 1,
};

/* The table; *nr gets its length. */
const struct astra_optimizer_kind *astra_optimizer_kinds(size_t *nr);

/*
 * The set a setting names: "rules", "llm", "both" (every optimizer), or a
 * comma-separated list of names.  Returns the set, or 0 for an unknown
 * name.
 */
unsigned astra_optimizer_set_parse(const char *s);

/* The setting's spelling of a set ("rules", "llm", "both"), for manifests. */
const char *astra_optimizer_set_name(unsigned set);

#endif
