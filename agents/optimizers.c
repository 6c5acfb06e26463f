/*
 * optimizers.c - the table of optimizers (see optimizer.h).
 *
 * Adding an optimizer is one row here and one file implementing new(),
 * propose() and free(); the loop never names an optimizer.
 */
#include "autoconfig.h"

#include <string.h>

#include "agents/opt-llm.h"
#include "agents/opt-rules.h"
#include "agents/optimizer.h"
#include "lib/util.h"

static const struct astra_optimizer_kind kinds[] = {
	{ "rules", astra_rules_optimizer_new },
	{ "llm", astra_llm_optimizer_new },
};

const struct astra_optimizer_kind *astra_optimizer_kinds(size_t *nr)
{
	*nr = ARRAY_SIZE(kinds);
	return kinds;
}

unsigned astra_optimizer_set_parse(const char *s)
{
	unsigned set = 0;
	size_t i;
	if (!strcmp(s, "both"))
		return (1u << ARRAY_SIZE(kinds)) - 1;
	while (*s) {
		size_t n = strcspn(s, ",");
		unsigned bit = 0;
		for (i = 0; i < ARRAY_SIZE(kinds); i++)
			if (strlen(kinds[i].name) == n && !strncmp(s, kinds[i].name, n))
				bit = 1u << i;
		if (!bit)
			return 0;
		set |= bit;
		s += n;
		if (*s == ',')
			s++;
	}
	return set;
}

const char *astra_optimizer_set_name(unsigned set)
{
	size_t i;
	if (set == (1u << ARRAY_SIZE(kinds)) - 1)
		return "both";
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (set == 1u << i)
			return kinds[i].name;
	return "?";
}
