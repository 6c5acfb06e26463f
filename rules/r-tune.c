/*
 * r-tune.c - rule "tune": one value of a tunable the pragma declares with
 * `tune(NAME: v1 v2 ...)`, written into the kernel and its launch.
 *
 * The step `tune=NAME:VALUE` replaces every use of the identifier NAME in
 * the kernel's text and in the launch expressions by VALUE (parenthesized).
 * The original gets NAME from a macro or a constant outside the kernel;
 * the variant no longer needs it.  When the launch changes, the variant
 * carries it.  A tunable that is a template parameter of the kernel is not
 * rewritten (it is part of the signature the harness instantiates).
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "rules/rule.h"

static const struct astra_tunable *find_tunable(const struct astra_rk *rk, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < rk->k->pragma.nr_tunables; i++)
		if (strlen(rk->k->pragma.tunables[i].name) == len && !memcmp(rk->k->pragma.tunables[i].name, name, len))
			return &rk->k->pragma.tunables[i];
	return NULL;
}

/* text with the identifier name replaced by (value); *count gets the number of uses. */
static char *substitute(const char *text, const char *name, const char *value, int *count)
{
	struct astra_syn syn;
	struct astra_syn_edits e = { NULL, 0, 0 };
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	*count = 0;
	if (astra_syn_lex(&syn, text, strlen(text)) < 0)
		return NULL;
	for (i = 0; i < syn.nr_toks; i++) {
		if (syn.toks[i].kind != SYN_IDENT || !astra_syn_is(&syn, i, name))
			continue;
		if (i > 0 && (astra_syn_is(&syn, i - 1, ".") || astra_syn_is(&syn, i - 1, "->") ||
			      astra_syn_is(&syn, i - 1, "::")))
			continue;
		astra_syn_edit_owned(&e, syn.toks[i].off, syn.toks[i].off + syn.toks[i].len, xasprintf("(%s)", value));
		(*count)++;
	}
	astra_syn_apply(text, 0, strlen(text), &e, &b);
	astra_syn_edits_release(&e);
	astra_syn_release(&syn);
	return astra_buf_detach(&b, NULL);
}

static void args(struct astra_rk *rk, struct astra_vec *out)
{
	size_t i, j;
	for (i = 0; i < rk->k->pragma.nr_tunables; i++)
		for (j = 0; j < rk->k->pragma.tunables[i].nr; j++)
			astra_vec_pushf(out, "%s:%s", rk->k->pragma.tunables[i].name, rk->k->pragma.tunables[i].values[j]);
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	const char *colon = arg ? strchr(arg, ':') : NULL;
	const struct astra_tunable *t;
	char *name, *text, *g = NULL, *b = NULL, *s = NULL;
	int n, ng = 0, nb = 0, ns = 0;
	size_t i;

	if (!colon) {
		astra_buf_adds(why, "expected tune=NAME:VALUE");
		return -1;
	}
	name = xstrndup(arg, (size_t)(colon - arg));
	t = find_tunable(rk, name, strlen(name));
	if (!t) {
		astra_buf_addf(why, "the pragma declares no tunable %s", name);
		free(name);
		return 0;
	}
	for (i = 0; i < t->nr; i++)
		if (!strcmp(t->values[i], colon + 1))
			break;
	if (i == t->nr) {
		astra_buf_addf(why, "%s is not one of the values tune(%s: ...) declares", colon + 1, name);
		free(name);
		return 0;
	}
	if (astra_rk_is_tmpl_param(rk, name)) {
		astra_buf_addf(why, "%s is a template parameter of the kernel; its values are instantiated, not rewritten", name);
		free(name);
		return 0;
	}
	text = substitute(rk->text, name, colon + 1, &n);
	if (rk->grid)
		g = substitute(rk->grid, name, colon + 1, &ng);
	if (rk->block)
		b = substitute(rk->block, name, colon + 1, &nb);
	if (rk->shmem)
		s = substitute(rk->shmem, name, colon + 1, &ns);
	if (!text || (!n && !ng && !nb && !ns)) {
		astra_buf_addf(why, "%s is not used in the kernel or its launch", name);
		free(text);
		free(g);
		free(b);
		free(s);
		free(name);
		return 0;
	}
	if (ng || nb || ns) {
		struct astra_rk probe;
		astra_rk_copy(&probe, rk);
		astra_rk_set_launch(&probe, ng ? g : NULL, nb ? b : NULL, ns ? s : NULL);
		if (!astra_rk_params_only(&probe, probe.grid) || !astra_rk_params_only(&probe, probe.block) ||
		    (probe.shmem && !astra_rk_params_only(&probe, probe.shmem))) {
			astra_buf_addf(why, "with %s=%s the launch uses names that are not kernel parameters", name, colon + 1);
			astra_rk_release(&probe);
			free(text);
			free(g);
			free(b);
			free(s);
			free(name);
			return 0;
		}
		astra_rk_release(&probe);
		astra_rk_set_launch(rk, ng ? g : NULL, nb ? b : NULL, ns ? s : NULL);
	}
	astra_rk_set_text(rk, text);
	free(g);
	free(b);
	free(s);
	free(name);
	return 1;
}

const struct astra_rule astra_rule_tune = {
	.name = "tune",
	.summary = "one value of a tunable declared with tune(NAME: ...), in the kernel and its launch",
	.flags = RULE_SWEEP | RULE_GEOMETRY,
	.stage = 0,
	.args = args,
	.apply = apply,
};
