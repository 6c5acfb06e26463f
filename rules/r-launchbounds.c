/*
 * r-launchbounds.c - rule "launch-bounds": `__launch_bounds__(B)` on a
 * kernel launched with a literal block size B.
 *
 * It tells ptxas the largest block, so registers are allocated for that
 * block size instead of the worst case (1024).  A launch with more than B
 * threads would then fail, so the variant carries its launch geometry
 * (every launch site gets B threads); the rule declines when the pragma's
 * launch cannot be written in the kernel's parameters.
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "rules/rule.h"

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_syn_edits edits = { NULL, 0, 0 };
	long b = astra_rk_block_max(rk);
	(void)arg;
	if (astra_rk_parse(rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	if (astra_syn_find(&rk->syn, 0, rk->syn.name_tok, "__launch_bounds__") != (size_t)-1) {
		astra_buf_adds(why, "the kernel has __launch_bounds__ already");
		return 0;
	}
	if (!b || b > 1024) {
		astra_buf_addf(why, "the block size (%s) is not an integer literal of at most 1024",
			       rk->block ? rk->block : "not given");
		return 0;
	}
	if (astra_rk_claim_geometry(rk, why) < 0)
		return 0;
	astra_syn_edit_owned(&edits, astra_syn_off(&rk->syn, rk->syn.name_tok), astra_syn_off(&rk->syn, rk->syn.name_tok),
			      xasprintf("__launch_bounds__(%ld) ", b));
	astra_rk_edit(rk, &edits);
	astra_syn_edits_release(&edits);
	return 1;
}

const struct astra_rule astra_rule_launch_bounds = {
	.name = "launch-bounds",
	.summary = "__launch_bounds__(B) for a literal block size B, or the larger of B1:B2 (the variant carries its "
		   "launch)",
	.flags = RULE_GEOMETRY,
	.stage = 90,
	.apply = apply,
};
