/*
 * gen-pragmas.c - turn the `#pragma astra` lines of the benchmark's
 * kernels into C++ for bench/bench.cu (bench/gen-pragmas runs it), so that
 * the benchmark tests exactly the shapes, buffer sizes, value ranges,
 * tolerances, types and launch geometries the pragmas state.
 *
 * It reads the pragmas as astra-cc does: the lines through front/lex.c
 * (continuations and comments included) and the clauses through
 * front/pragma.c, so the benchmark and the compiler can never read one
 * pragma two ways.  A pragma astra-cc would warn about stops it, with the
 * parser's file:line:col message as an error.
 *
 * Usage: gen-pragmas KERNEL.cu... REFERENCE.cu... > pragmas.inc
 * A file under a directory named "reference" gives REF_* launch macros;
 * any other gives the ORIG_* macros and the rest.  Each file holds one
 * kernel, named as the file (without .cu).  For kernel K it emits
 *   SHAPES_K            a NULL-terminated array of "name=value, ..." strings
 *   ORIG_GRID_K ORIG_BLOCK_K ORIG_SHMEM_K   (and REF_*) launch expressions
 *   COUNT_K_buf         each buffer's element count expression
 *   RANGE_K_buf         lo, hi from range(...); 1, -1 when not given
 *   TOL_K_buf           rtol, atol from tolerance(...) (the buffer's, else
 *                       the global one); -1 when not given
 *   SCALAR_K_name       a scalars(...) value
 *   FOR_TYPES_K(F)      F(K, type) for each types(T=type), F(K, float) if none
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/util.h"
#include "front/lex.h"
#include "front/pragma.h"

/* The text after `#pragma astra` in directive d (of length n), or NULL. */
static const char *astra_clauses(const char *d, size_t n)
{
	const char *p = d + 1, *end = d + n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p < 6 || memcmp(p, "pragma", 6))
		return NULL;
	p += 6;
	if (p >= end || (*p != ' ' && *p != '\t'))
		return NULL;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p < 5 || memcmp(p, "astra", 5) || (p + 5 < end && astra_lex_ident_char((unsigned char)p[5])))
		return NULL;
	return p + 5;
}

/* Every `#pragma astra` line of file into p; 0, or -1 after saying why on stderr. */
static int read_pragmas(const char *file, struct astra_pragma *p)
{
	struct astra_buf text = ASTRA_BUF_INIT;
	struct astra_lexed lx;
	struct astra_diags diags = { 0 };
	size_t i;
	int rc = 0;

	if (astra_buf_read_file(&text, file, 16 << 20) < 0) {
		fprintf(stderr, "gen-pragmas: cannot read %s\n", file);
		return -1;
	}
	if (astra_lex(text.buf, text.len, 0, &lx) < 0) {
		fprintf(stderr, "%s:%u: error: %s\n", file, lx.error_line, lx.error);
		rc = -1;
	}
	for (i = 0; !rc && i < lx.nr; i++) {
		const struct astra_lex_tok *t = &lx.toks[i];
		const char *c, *d = text.buf + t->off;
		size_t bol = t->off;
		char *clauses;
		if (t->kind != ASTRA_LEX_PP || !(c = astra_clauses(d, t->len)))
			continue;
		while (bol > 0 && text.buf[bol - 1] != '\n')
			bol--;
		clauses = xstrndup(c, t->len - (size_t)(c - d));
		if (astra_pragma_parse(p, clauses, file, t->line, (unsigned)(c - text.buf - bol) + 1, &diags) < 0 ||
		    diags.nr) {
			char *msg;
			astra_diags_promote(&diags);
			msg = astra_diags_format(&diags);
			fputs(msg, stderr);
			free(msg);
			rc = -1;
		}
		free(clauses);
	}
	astra_lexed_release(&lx);
	astra_diags_release(&diags);
	astra_buf_release(&text);
	return rc;
}

static void print_tolerance(const struct astra_tolerance *t)
{
	if (t)
		printf("%.9g, %.9g\n", t->rtol, t->atol);
	else
		printf("-1, -1\n");
}

/* The ORIG_* or REF_* launch macros. */
static void print_launch(const struct astra_pragma *p, const char *side, const char *k)
{
	if (!p->grid && !p->block && !p->shmem)
		return;
	if (p->grid)
		printf("#define %s_GRID_%s (%s)\n", side, k, p->grid);
	if (p->block)
		printf("#define %s_BLOCK_%s (%s)\n", side, k, p->block);
	if (p->shmem)
		printf("#define %s_SHMEM_%s (%s)\n", side, k, p->shmem);
	else
		printf("#define %s_SHMEM_%s 0\n", side, k);
}

/* What the original kernel's pragma says besides the launch. */
static void print_orig(const struct astra_pragma *p, const char *k)
{
	size_t i, j;

	for (i = 0; i < p->scalars.nr; i++)
		printf("#define SCALAR_%s_%s (%s)\n", k, p->scalars.items[i].name, p->scalars.items[i].value);
	for (i = 0; i < p->nr_buffers; i++) {
		const struct astra_bufspec *b = &p->buffers[i];
		const struct astra_range *range = NULL;
		const struct astra_tolerance *mine = NULL, *all = NULL;
		for (j = 0; j < p->nr_ranges; j++)
			if (!strcmp(p->ranges[j].name, b->name))
				range = &p->ranges[j];
		for (j = 0; j < p->nr_tolerances; j++) {
			if (!p->tolerances[j].name)
				all = &p->tolerances[j];
			else if (!strcmp(p->tolerances[j].name, b->name))
				mine = &p->tolerances[j];
		}
		printf("#define COUNT_%s_%s ((size_t)(%s))\n", k, b->name, b->count);
		if (range)
			printf("#define RANGE_%s_%s %s, %s\n", k, b->name, range->lo, range->hi);
		else
			printf("#define RANGE_%s_%s 1, -1\n", k, b->name);
		printf("#define TOL_%s_%s ", k, b->name);
		print_tolerance(mine ? mine : all);
	}
	printf("static const char *SHAPES_%s[] = {\n", k);
	for (i = 0; i < p->nr_shapes; i++) {
		printf("\t\"");
		for (j = 0; j < p->shapes[i].nr; j++)
			printf("%s%s=%s", j ? ", " : "", p->shapes[i].items[j].name, p->shapes[i].items[j].value);
		printf("\",\n");
	}
	printf("\tnullptr\n};\n");
	printf("#define FOR_TYPES_%s(F)", k);
	for (i = 0; i < p->nr_types; i++)
		for (j = 0; j < p->types[i].nr; j++)
			printf(" F(%s, %s)", k, p->types[i].items[j].value);
	if (!p->nr_types)
		printf(" F(%s, float)", k);
	printf("\n\n");
}

/* Is file directly under a directory named "reference"? */
static int is_reference(const char *file)
{
	const char *slash = strrchr(file, '/');
	size_t n = slash ? (size_t)(slash - file) : 0;
	return slash && n >= 9 && !memcmp(slash - 9, "reference", 9) && (n == 9 || slash[-10] == '/');
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: gen-pragmas KERNEL.cu... REFERENCE.cu... > pragmas.inc\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct astra_pragma p;
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		size_t n = strlen(base);
		char *k = xstrndup(base, n > 3 && !strcmp(base + n - 3, ".cu") ? n - 3 : n);
		int ref = is_reference(argv[i]);

		astra_pragma_init(&p);
		if (read_pragmas(argv[i], &p) < 0)
			return 1;
		printf("/* %s */\n", argv[i]);
		print_launch(&p, ref ? "REF" : "ORIG", k);
		if (!ref)
			print_orig(&p, k);
		astra_pragma_release(&p);
		free(k);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
