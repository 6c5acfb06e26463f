/*
 * opt-rules.c - the "rules" optimizer (see opt-rules.h): the adapter
 * between the loop's history (agents/optimizer.h) and the planner.
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/log.h"
#include "lib/util.h"
#include "agents/opt-rules.h"
#include "rules/planner.h"
#include "rules/rule.h"

#define ORIGIN "rules: "

static int propose(struct astra_optimizer *self, const struct astra_opt_context *ctx, struct astra_variant *out,
		   size_t max)
{
	struct astra_rules_try *tries = xcalloc(ctx->nr_history + 1, sizeof(*tries));
	struct astra_vec plan = ASTRA_VEC_INIT;
	size_t i, n = 0, nr = 0;
	(void)self;

	for (i = 0; i < ctx->nr_history; i++) {
		const struct astra_attempt *a = &ctx->history[i];
		if (!a->origin || !astra_starts_with(a->origin, ORIGIN))
			continue; /* another optimizer's candidate: its text still counts as tried */
		tries[nr].steps = a->origin + strlen(ORIGIN);
		tries[nr].ok = a->compiled && a->accepted;
		tries[nr].speedup = a->speedup;
		tries[nr].text = a->text;
		nr++;
	}
	astra_rules_plan(ctx->kernel, ctx->cc, tries, nr, max, &plan);
	for (i = 0; i < plan.nr && n < max; i++) {
		struct astra_buf why = ASTRA_BUF_INIT;
		if (astra_rules_build(ctx->kernel, ctx->cc, plan.v[i], &out[n], &why) == 1)
			n++;
		else
			astra_trace(ASTRA_TRACE_LOOP, "rules: [%s] no longer builds: %s", plan.v[i], why.buf);
		astra_buf_release(&why);
	}
	astra_trace(ASTRA_TRACE_LOOP, "rules: round %d of %s: %zu candidate(s)", ctx->round, ctx->kernel->name, n);
	astra_vec_clear(&plan);
	free(tries);
	return (int)n;
}

static void opt_free(struct astra_optimizer *self)
{
	free(self);
}

struct astra_optimizer *astra_rules_optimizer_new(void)
{
	struct astra_optimizer *o = xcalloc(1, sizeof(*o));
	o->name = "rules";
	o->propose = propose;
	o->free = opt_free;
	return o;
}
