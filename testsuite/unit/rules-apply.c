/*
 * rules-apply.c - test tool: apply rule steps to an annotated kernel of a
 * .cu file and print the variant, or why a step declined.  No GPU needed.
 *
 *   rules-apply [--kernel NAME] [--cc N] [--tu] [--check] FILE STEPS [-- NVCC FLAGS]
 *   rules-apply [--kernel NAME] [--cc N] --plan FILE [-- NVCC FLAGS]
 *
 * NVCC FLAGS are the build's (-D, -I, -std...): the file is read as that
 * build reads it (a -DENABLE_BF16 that changes a typedef changes what the
 * rules see).
 * --tu prints the whole file with the kernel's definition replaced by the
 * variant and every types() set instantiated, ready for `nvcc -c`.
 * --check also runs the variant through astra_extract_candidate (the gate
 * every proposed variant passes before the verifier) and fails on its
 * reasons.  --plan prints the planner's first round.  Exit status: 0
 * applied, 1 declined or rejected, 2 usage or internal error.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "front/extract.h"
#include "rules/planner.h"
#include "rules/rule.h"

static void usage(void)
{
	fprintf(stderr, "usage: rules-apply [--kernel NAME] [--cc N] [--tu] [--check] FILE STEPS [-- NVCC FLAGS]\n"
			"       rules-apply [--kernel NAME] [--cc N] --plan FILE [-- NVCC FLAGS]\n");
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

int main(int argc, char **argv)
{
	const char *kname = NULL, *file = NULL, *steps = NULL;
	int cc = 90, tu = 0, check = 0, plan = 0, i, ret;
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
		else if (!file)
			file = argv[i];
		else if (!steps)
			steps = argv[i];
		else {
			usage();
			return 2;
		}
	}
	if (!file || (!steps && !plan)) {
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
