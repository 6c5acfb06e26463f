/*
 * rules-apply.c - test tool: apply rule steps to an annotated kernel of a
 * .cu file and print the variant, or why a step declined.  No GPU needed.
 *
 *   rules-apply [--kernel NAME] [--cc N] [--tu] [--check] FILE STEPS [-- NVCC FLAGS]
 *   rules-apply [--kernel NAME] [--cc N] --plan FILE [-- NVCC FLAGS]
 *   rules-apply [--kernel NAME] --env FILE
 *   rules-apply [--kernel NAME] --canon FILE
 *
 * NVCC FLAGS are the build's (-D, -I, -std...): the file is read as that
 * build reads it (a -DENABLE_BF16 that changes a typedef changes what the
 * rules see).
 * --tu prints the whole file with the kernel's definition replaced by the
 * variant and every types() set instantiated, ready for `nvcc -c`.
 * --check also runs the variant through astra_extract_candidate (the gate
 * every proposed variant passes before the verifier) and fails on its
 * reasons.  --plan prints the planner's first round.  --env prints what
 * extraction resolved of the kernel's environment (front/kernel.h: its
 * macros, aliases, __device__ functions and constants).  --canon prints
 * the kernel in the rules' wording (rules/canon.h) and what changed.  Exit status: 0
 * applied, 1 declined or rejected, 2 usage or internal error.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "front/extract.h"
#include "front/types.h"
#include "rules/canon.h"
#include "rules/planner.h"
#include "rules/rule.h"

static void usage(void)
{
	fprintf(stderr, "usage: rules-apply [--kernel NAME] [--cc N] [--tu] [--check] FILE STEPS [-- NVCC FLAGS]\n"
			"       rules-apply [--kernel NAME] [--cc N] --plan FILE [-- NVCC FLAGS]\n"
			"       rules-apply [--kernel NAME] --env FILE\n"
			"       rules-apply [--kernel NAME] --canon FILE\n");
}

static void instantiate(const struct astra_kernel *k)
{
	size_t t, p, a;
	printf("\n/* rules-apply: instantiations */\n");
	if (!k->nr_tmpl)
		printf("void *astra_inst = (void *)&%s;\n", k->name);
	for (t = 0; t < k->pragma.nr_types; t++) {
		printf("void *astra_inst_%zu = (void *)&%s<", t, k->name);
		for (p = 0; p < k->nr_tmpl; p++) {
			const char *val = NULL;
			for (a = 0; a < k->pragma.types[t].nr; a++)
				if (!strcmp(k->pragma.types[t].items[a].name, k->tmpl_params[p]))
					val = k->pragma.types[t].items[a].value;
			printf("%s%s", p ? ", " : "", val ? val : "int");
		}
		printf(">;\n");
	}
}

static void print_env(const struct astra_env *e)
{
	size_t i, j;
	for (i = 0; i < e->nr_macros; i++) {
		printf("macro %s", e->macros[i].name);
		if (e->macros[i].function_like) {
			printf("(");
			for (j = 0; j < e->macros[i].nr_params; j++)
				printf("%s%s", j ? ", " : "", e->macros[i].params[j]);
			printf(")");
		}
		printf(" = %s\n", e->macros[i].body);
	}
	for (i = 0; i < e->nr_aliases; i++) {
		char *r = astra_type_resolve(e, e->aliases[i].name);
		printf("alias %s = %s (%s; resolves to %s, %d bytes)\n", e->aliases[i].name, e->aliases[i].type,
		       e->aliases[i].how == ASTRA_ALIAS_TYPEDEF ? "typedef" :
		       e->aliases[i].how == ASTRA_ALIAS_USING ? "using" : "macro", r,
		       astra_type_size(e, e->aliases[i].name));
		free(r);
	}
	for (i = 0; i < e->nr_funcs; i++) {
		const struct astra_func *f = &e->funcs[i];
		printf("function %s %s(", f->ret, f->name);
		for (j = 0; j < f->nr_params; j++)
			printf("%s%s %s", j ? ", " : "", f->params[j].type, f->params[j].name);
		printf(")%s%s: %zu bytes of body\n", f->is_template ? " template" : "", f->overloaded ? " overloaded" : "",
		       strlen(f->body));
	}
	for (i = 0; i < e->nr_consts; i++)
		printf("constant %s %s = %s\n", e->consts[i].type, e->consts[i].name, e->consts[i].init);
}

int main(int argc, char **argv)
{
	const char *kname = NULL, *file = NULL, *steps = NULL;
	int cc = 90, tu = 0, check = 0, plan = 0, env = 0, canon = 0, i, ret;
	struct astra_tu unit;
	const struct astra_kernel *k = NULL;
	struct astra_variant v;
	struct astra_buf why = ASTRA_BUF_INIT;
	size_t j;
	struct astra_vec nvcc_argv = ASTRA_VEC_INIT;
	struct astra_cmdline cl;
	int have_flags = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			have_flags = 1;
			break;
		}
		if (!strcmp(argv[i], "--kernel") && i + 1 < argc)
			kname = argv[++i];
		else if (!strcmp(argv[i], "--cc") && i + 1 < argc)
			cc = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tu"))
			tu = 1;
		else if (!strcmp(argv[i], "--check"))
			check = 1;
		else if (!strcmp(argv[i], "--plan"))
			plan = 1;
		else if (!strcmp(argv[i], "--env"))
			env = 1;
		else if (!strcmp(argv[i], "--canon"))
			canon = 1;
		else if (!file)
			file = argv[i];
		else if (!steps)
			steps = argv[i];
		else {
			usage();
			return 2;
		}
	}
	if (!file || (!steps && !plan && !env && !canon)) {
		usage();
		return 2;
	}
	memset(&unit, 0, sizeof(unit));
	astra_vec_push(&nvcc_argv, "nvcc");
	astra_vec_push(&nvcc_argv, "-c");
	astra_vec_push(&nvcc_argv, file);
	for (i++; have_flags && i < argc; i++)
		astra_vec_push(&nvcc_argv, argv[i]);
	astra_cmdline_parse(&cl, (int)nvcc_argv.nr, nvcc_argv.v);
	astra_vec_clear(&nvcc_argv);
	if (astra_extract_tu(&unit, file, have_flags ? &cl : NULL) < 0) {
		fprintf(stderr, "rules-apply: cannot extract %s\n", file);
		astra_tu_release(&unit);
		astra_cmdline_release(&cl);
		return 2;
	}
	for (j = 0; j < unit.nr_kernels; j++)
		if (!kname || !strcmp(unit.kernels[j].name, kname)) {
			k = &unit.kernels[j];
			break;
		}
	if (!k) {
		fprintf(stderr, "rules-apply: no annotated kernel %s in %s\n", kname ? kname : "at all", file);
		astra_tu_release(&unit);
		astra_cmdline_release(&cl);
		return 2;
	}
	if (env) {
		print_env(&k->env);
		astra_tu_release(&unit);
		return 0;
	}
	if (canon) {
		struct astra_rk rk;
		struct astra_buf notes = ASTRA_BUF_INIT;
		astra_rk_init(&rk, k, cc);
		ret = astra_canon(&rk, &notes);
		if (tu) {
			fwrite(unit.text, 1, k->start, stdout);
			fputs(rk.text, stdout);
			fputs(unit.text + k->end, stdout);
		} else {
			printf("%s\n/* %d rewrites:\n%s*/\n", rk.text, ret, notes.buf ? notes.buf : "");
		}
		astra_buf_release(&notes);
		astra_rk_release(&rk);
		astra_tu_release(&unit);
		return ret < 0 ? 2 : 0;
	}
	if (plan) {
		struct astra_vec p = ASTRA_VEC_INIT;
		astra_rules_plan(k, cc, NULL, 0, 32, &p);
		for (j = 0; j < p.nr; j++)
			printf("%s\n", p.v[j]);
		astra_vec_clear(&p);
		astra_tu_release(&unit);
		astra_cmdline_release(&cl);
		return 0;
	}
	ret = astra_rules_build(k, cc, steps, &v, &why);
	if (ret != 1) {
		printf("declined: %s\n", why.buf);
		astra_buf_release(&why);
		astra_tu_release(&unit);
		astra_cmdline_release(&cl);
		return ret == 0 ? 1 : 2;
	}
	if (check) {
		struct astra_variant c;
		struct astra_buf bad = ASTRA_BUF_INIT;
		memset(&c, 0, sizeof(c));
		c.text = xstrdup(v.text);
		if (astra_extract_candidate(k, &c, NULL, &bad) < 0) {
			printf("rejected by the candidate gate:\n%s", bad.buf);
			astra_buf_release(&bad);
			astra_variant_release(&c);
			astra_variant_release(&v);
			astra_tu_release(&unit);
			astra_cmdline_release(&cl);
			return 1;
		}
		if ((c.grid == NULL) != (v.grid == NULL) || (c.grid && strcmp(c.grid, v.grid)) ||
		    (c.block && v.block && strcmp(c.block, v.block))) {
			printf("the gate read another launch: grid=%s block=%s\n", c.grid ? c.grid : "-",
			       c.block ? c.block : "-");
			astra_variant_release(&c);
			astra_variant_release(&v);
			astra_tu_release(&unit);
			astra_cmdline_release(&cl);
			return 1;
		}
		astra_buf_release(&bad);
		astra_variant_release(&c);
	}
	if (tu) {
		fwrite(unit.text, 1, k->start, stdout);
		fputs(v.text, stdout);
		fputs(unit.text + k->end, stdout);
		instantiate(k);
	} else {
		fputs(v.text, stdout);
	}
	astra_variant_release(&v);
	astra_buf_release(&why);
	astra_tu_release(&unit);
	astra_cmdline_release(&cl);
	return 0;
}
