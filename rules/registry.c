/*
 * registry.c - the table of rules.  Adding a rule: write rules/r-NAME.c
 * defining `const struct astra_rule astra_rule_NAME`, declare it below and
 * add it to the table; doc/rules.md describes it.
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "rules/rule.h"

extern const struct astra_rule astra_rule_tune;
extern const struct astra_rule astra_rule_block_per_row;
extern const struct astra_rule astra_rule_warp_per_row;
extern const struct astra_rule astra_rule_select_regs;
extern const struct astra_rule astra_rule_row_split;
extern const struct astra_rule astra_rule_flatten;
extern const struct astra_rule astra_rule_warp_rows;
extern const struct astra_rule astra_rule_online_softmax;
extern const struct astra_rule astra_rule_transpose;
extern const struct astra_rule astra_rule_elems;
extern const struct astra_rule astra_rule_grid_stride;
extern const struct astra_rule astra_rule_warp_reduce;
extern const struct astra_rule astra_rule_vectorize;
extern const struct astra_rule astra_rule_row_cache;
extern const struct astra_rule astra_rule_hoist;
extern const struct astra_rule astra_rule_half2;
extern const struct astra_rule astra_rule_fastmath;
extern const struct astra_rule astra_rule_unroll;
extern const struct astra_rule astra_rule_restrict;
extern const struct astra_rule astra_rule_block_size;
extern const struct astra_rule astra_rule_launch_bounds;
extern const struct astra_rule astra_rule_lower_rows;
extern const struct astra_rule astra_rule_lower_reduce;
extern const struct astra_rule astra_rule_lower_transpose;
extern const struct astra_rule astra_rule_lower_transpose_wide;
extern const struct astra_rule astra_rule_lower_contract;
extern const struct astra_rule astra_rule_lower_contract_rb;
extern const struct astra_rule astra_rule_lower_contract_rb84;
extern const struct astra_rule astra_rule_lower_contract_rb8;
extern const struct astra_rule astra_rule_lower_matvec;
extern const struct astra_rule astra_rule_lower_matvec_narrow;
extern const struct astra_rule astra_rule_lower_matvec_stream;
extern const struct astra_rule astra_rule_lower_stencil;
extern const struct astra_rule astra_rule_lower_map;
extern const struct astra_rule astra_rule_lower_strip;

const struct astra_rule *const astra_rules[] = {
	&astra_rule_tune,
	&astra_rule_block_per_row,
	&astra_rule_warp_per_row,
	&astra_rule_row_split,
	&astra_rule_flatten,
	&astra_rule_warp_rows,
	&astra_rule_lower_rows,
	&astra_rule_lower_reduce,
	&astra_rule_lower_transpose,
	&astra_rule_lower_transpose_wide,
	&astra_rule_lower_contract,
	&astra_rule_lower_contract_rb,
	&astra_rule_lower_contract_rb84,
	&astra_rule_lower_contract_rb8,
	&astra_rule_lower_matvec,
	&astra_rule_lower_matvec_narrow,
	&astra_rule_lower_matvec_stream,
	&astra_rule_lower_stencil,
	&astra_rule_lower_map,
	&astra_rule_lower_strip,
	&astra_rule_online_softmax,
	&astra_rule_select_regs,
	&astra_rule_transpose,
	&astra_rule_elems,
	&astra_rule_grid_stride,
	&astra_rule_warp_reduce,
	&astra_rule_vectorize,
	&astra_rule_row_cache,
	&astra_rule_hoist,
	&astra_rule_half2,
	&astra_rule_fastmath,
	&astra_rule_unroll,
	&astra_rule_restrict,
	&astra_rule_block_size,
	&astra_rule_launch_bounds,
};

const size_t astra_nr_rules = ARRAY_SIZE(astra_rules);

const struct astra_rule *astra_rules_find(const char *name)
{
	size_t i;
	for (i = 0; i < astra_nr_rules; i++)
		if (!strcmp(astra_rules[i]->name, name))
			return astra_rules[i];
	return NULL;
}
