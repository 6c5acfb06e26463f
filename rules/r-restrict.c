/*
 * r-restrict.c - rule "restrict": `__restrict__` on every pointer
 * parameter, when the pragma says `noalias`.
 *
 * With it, nvcc may keep loaded values in registers across stores and read
 * const data through the read-only (non-coherent) path, as __ldg does.
 * It is only true when no two pointer arguments overlap, which no test can
 * prove for every caller, so the user must state it: without `noalias`
 * the rule declines.  __restrict__ on a parameter is a top-level
 * qualifier: the kernel's type and signature are unchanged.
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "rules/rule.h"

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_syn_edits edits = { NULL, 0, 0 };
	struct astra_syn *syn;
	size_t i, seg, last_star = (size_t)-1;
	int has_restrict = 0, count = 0;
	(void)arg;

	if (!(rk->k->pragma.flags & ASTRA_PRAGMA_NOALIAS)) {
		astra_buf_adds(why, "the pragma does not say `noalias` (pointer arguments might overlap)");
		return 0;
	}
	if (astra_rk_parse(rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	syn = &rk->syn;
	seg = syn->params0;
	for (i = syn->params0; i <= syn->params1; i++) {
		if (i < syn->params1 && (astra_syn_is(syn, i, "(") || astra_syn_is(syn, i, "[") || astra_syn_is(syn, i, "<"))) {
			if (!astra_syn_is(syn, i, "<")) {
				i = astra_syn_match(syn, i);
				if (i == (size_t)-1)
					return -1;
			}
			continue;
		}
		if (i == syn->params1 || astra_syn_is(syn, i, ",")) {
			if (last_star != (size_t)-1 && !has_restrict) {
				astra_syn_edit(&edits, astra_syn_end(syn, last_star), astra_syn_end(syn, last_star),
						"__restrict__ ");
				count++;
			}
			last_star = (size_t)-1;
			has_restrict = 0;
			seg = i + 1;
			continue;
		}
		if (astra_syn_is(syn, i, "*"))
			last_star = i;
		if (astra_syn_is(syn, i, "__restrict__") || astra_syn_is(syn, i, "restrict"))
			has_restrict = 1;
	}
	(void)seg;
	if (!count) {
		astra_syn_edits_release(&edits);
		astra_buf_adds(why, "every pointer parameter is __restrict__ already (or there is none)");
		return 0;
	}
	astra_rk_edit(rk, &edits);
	astra_syn_edits_release(&edits);
	return 1;
}

const struct astra_rule astra_rule_restrict = {
	.name = "restrict",
	.summary = "__restrict__ on pointer parameters (read-only loads via the non-coherent path); needs noalias",
	.stage = 80,
	.apply = apply,
};
