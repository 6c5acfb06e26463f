/*
 * rules-apply.c - test tool: apply rule steps to a kernel of a .cu file and
 * print the variant (or why a step declined), without libclang or a GPU.
 *
 *   rules-apply [--kernel NAME] [--cc N] [--tu] FILE STEPS
 *   rules-apply [--kernel NAME] [--cc N] --explain FILE
 *
 * --tu prints the whole file with the kernel's definition replaced by the
 * variant, ready for `nvcc -c`.  Exit status: 0 applied, 1 declined, 2 usage
 * or internal error.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astra-cc/buf.h"
#include "rules/explain.h"
#include "rules/rule.h"
#include "testsuite/unit/rules-fixture.h"

int main(int argc, char **argv)
{
	const char *kname = NULL, *file = NULL, *steps = NULL;
	int cc = 90, tu = 0, explain = 0, i, ret;
	struct fixture fx;
	const struct astra_kernel *k;
	struct astra_variant v;
	struct astra_buf why = ASTRA_BUF_INIT;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--kernel") && i + 1 < argc)
			kname = argv[++i];
		else if (!strcmp(argv[i], "--cc") && i + 1 < argc)
			cc = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tu"))
			tu = 1;
		else if (!strcmp(argv[i], "--explain"))
			explain = 1;
		else if (!file)
			file = argv[i];
		else if (!steps)
			steps = argv[i];
		else {
			fprintf(stderr, "usage: rules-apply [--kernel NAME] [--cc N] [--tu|--explain] FILE [STEPS]\n");
			return 2;
		}
	}
	if (!file || (!steps && !explain)) {
		fprintf(stderr, "usage: rules-apply [--kernel NAME] [--cc N] [--tu|--explain] FILE [STEPS]\n");
		return 2;
	}
	if (fixture_load(&fx, file) < 0)
		return 2;
	k = fixture_kernel(&fx, kname);
	if (!k) {
		fprintf(stderr, "rules-apply: no kernel %s in %s\n", kname ? kname : "at all", file);
		return 2;
	}
	if (explain) {
		struct astra_buf out = ASTRA_BUF_INIT;
		astra_rules_explain(k, cc, &out);
		fputs(out.buf, stdout);
		astra_buf_release(&out);
		fixture_release(&fx);
		return 0;
	}
	ret = astra_rules_build(k, cc, steps, &v, &why);
	if (ret != 1) {
		printf("declined: %s\n", why.buf);
		astra_buf_release(&why);
		fixture_release(&fx);
		return ret == 0 ? 1 : 2;
	}
	if (tu) {
		size_t t, p;
		fwrite(fx.text, 1, k->start, stdout);
		fputs(v.text, stdout);
		fputs(fx.text + k->end, stdout);
		/* instantiate every types() set so that nvcc compiles device code */
		printf("\n/* rules-apply: instantiations */\n");
		if (!k->nr_tmpl)
			printf("void *astra_inst = (void *)&%s;\n", k->name);
		for (t = 0; t < k->pragma.nr_types; t++) {
			printf("void *astra_inst_%zu = (void *)&%s<", t, k->name);
			for (p = 0; p < k->nr_tmpl; p++) {
				const char *val = NULL;
				size_t a;
				for (a = 0; a < k->pragma.types[t].nr; a++)
					if (!strcmp(k->pragma.types[t].items[a].name, k->tmpl_params[p]))
						val = k->pragma.types[t].items[a].value;
				printf("%s%s", p ? ", " : "", val ? val : "int");
			}
			printf(">;\n");
		}
	} else {
		fputs(v.text, stdout);
	}
	fixture_variant_release(&v);
	astra_buf_release(&why);
	fixture_release(&fx);
	return 0;
}
