/*
 * pragma-clauses.c - the clauses of `#pragma astra` (pragma-int.h): each
 * clause's grammar over the lexer's tokens (name=value lists, buffers and
 * their extents, launch geometry, ranges, tolerances...), the table of
 * clauses and the parse of one directive line.
 */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/util.h"
#include "front/pragma.h"
#include "front/pragma-int.h"

/* ------------------------------------------------------------ clauses */

/* shapes(...), types(...), scalars(...): name=value lists. */
static int assign_list(struct parser *P, struct astra_assign_set *set, const char *clause,
		       const char *what)
{
	if (is(cur(P), ")")) {
		astra_pragma_fail(P, cur(P), "empty %s(); expected name=%s", clause, !strcmp(clause, "types") ? "type" : "value");
		return -1;
	}
	for (;;) {
		const struct tok *n = astra_pragma_name(P, "a name");
		struct astra_assign *a;
		char *value;
		int r;
		if (!n)
			return -1;
		if (!is(cur(P), "=")) {
			char *d = astra_pragma_describe(cur(P));
			astra_pragma_fail(P, cur(P), "expected '=' after '%.*s', found %s", (int)n->len, n->s, d);
			free(d);
			return -1;
		}
		P->i++;
		value = astra_pragma_expr(P, STOP_COMMA | STOP_RPAREN | STOP_ASSIGN, what);
		if (!value)
			return -1;
		{
			char *nm = tok_str(n);
			if (astra_assign_get(set, nm)) {
				astra_pragma_fail(P, n, "'%s' is given twice in %s()", nm, clause);
				free(nm);
				free(value);
				return -1;
			}
			ALLOC_GROW(set->items, set->nr + 1, set->alloc);
			a = &set->items[set->nr++];
			a->name = nm;
			a->value = value;
			a->pos = pos_of(n);
		}
		r = astra_pragma_list_next(P, 1, "a value");
		if (r)
			return r < 0 ? -1 : 0;
	}
}

static int clause_shapes(struct parser *P, const struct tok *kw)
{
	struct astra_pragma *p = P->p;
	struct astra_assign_set *set;
	ALLOC_GROW(p->shapes, p->nr_shapes + 1, p->alloc_shapes);
	set = &p->shapes[p->nr_shapes++];
	memset(set, 0, sizeof(*set));
	set->pos = pos_of(kw);
	return assign_list(P, set, "shapes", "a value");
}

static int clause_types(struct parser *P, const struct tok *kw)
{
	struct astra_pragma *p = P->p;
	struct astra_assign_set *set;
	ALLOC_GROW(p->types, p->nr_types + 1, p->alloc_types);
	set = &p->types[p->nr_types++];
	memset(set, 0, sizeof(*set));
	set->pos = pos_of(kw);
	return assign_list(P, set, "types", "a type");
}

static int clause_scalars(struct parser *P, const struct tok *kw)
{
	if (!P->p->scalars.nr)
		P->p->scalars.pos = pos_of(kw);
	return assign_list(P, &P->p->scalars, "scalars", "a value");
}

static int clause_buffers(struct parser *P, const struct tok *kw)
{
	struct astra_pragma *p = P->p;
	(void)kw;
	if (is(cur(P), ")"))
		return astra_pragma_expected(P, "a buffer such as x[n]");
	for (;;) {
		const struct tok *n = astra_pragma_name(P, "a buffer name");
		char *count, *nm;
		int r;
		if (!n)
			return -1;
		if (!is(cur(P), "[")) {
			char *d = astra_pragma_describe(cur(P));
			astra_pragma_fail(P, cur(P), "expected '[' after '%.*s' (buffers(%.*s[count])), found %s",
					  (int)n->len, n->s, (int)n->len, n->s, d);
			free(d);
			return -1;
		}
		P->i++;
		count = astra_pragma_expr(P, STOP_RBRACKET | STOP_RPAREN | STOP_COMMA, "an element count");
		if (!count)
			return -1;
		if (!is(cur(P), "]")) {
			free(count);
			return astra_pragma_expected(P, "']'");
		}
		P->i++;
		nm = tok_str(n);
		if (astra_pragma_buffer(p, nm)) {
			astra_pragma_fail(P, n, "buffer '%s' is described twice", nm);
			free(nm);
			free(count);
			return -1;
		}
		ALLOC_GROW(p->buffers, p->nr_buffers + 1, p->alloc_buffers);
		p->buffers[p->nr_buffers].name = nm;
		p->buffers[p->nr_buffers].count = count;
		p->buffers[p->nr_buffers].pos = pos_of(n);
		p->nr_buffers++;
		r = astra_pragma_list_next(P, 1, "a buffer");
		if (r)
			return r < 0 ? -1 : 0;
	}
}

static int clause_outputs(struct parser *P, const struct tok *kw)
{
	struct astra_pragma *p = P->p;
	(void)kw;
	if (is(cur(P), ")"))
		return astra_pragma_expected(P, "the name of a buffer the kernel writes");
	for (;;) {
		const struct tok *n = astra_pragma_name(P, "the name of a buffer the kernel writes");
		char *nm;
		int r;
		if (!n)
			return -1;
		nm = tok_str(n);
		if (astra_pragma_is_output(p, nm)) {
			astra_pragma_fail(P, n, "output '%s' is named twice", nm);
			free(nm);
			return -1;
		}
		ALLOC_GROW(p->outputs, p->nr_outputs + 1, p->alloc_outputs);
		ALLOC_GROW(p->output_pos, p->nr_outputs + 1, p->alloc_output_pos);
		p->outputs[p->nr_outputs] = nm;
		p->output_pos[p->nr_outputs] = pos_of(n);
		p->nr_outputs++;
		r = astra_pragma_list_next(P, 1, "an output");
		if (r)
			return r < 0 ? -1 : 0;
	}
}

static int clause_launch(struct parser *P, const struct tok *kw)
{
	struct astra_pragma *p = P->p;
	if (!p->grid && !p->block && !p->shmem)
		p->launch_pos = pos_of(kw);
	if (is(cur(P), ")"))
		return astra_pragma_expected(P, "grid=, block= or shmem=");
	for (;;) {
		const struct tok *n = astra_pragma_name(P, "grid=, block= or shmem=");
		char **slot, *value;
		int r;
		if (!n)
			return -1;
		if (tok_eq(n, "grid"))
			slot = &p->grid;
		else if (tok_eq(n, "block"))
			slot = &p->block;
		else if (tok_eq(n, "shmem"))
			slot = &p->shmem;
		else {
			astra_pragma_fail(P, n, "unknown launch parameter '%.*s'; expected grid, block or shmem",
					  (int)n->len, n->s);
			return -1;
		}
		if (*slot) {
			astra_pragma_fail(P, n, "'%.*s' is given twice in launch()", (int)n->len, n->s);
			return -1;
		}
		if (!is(cur(P), "=")) {
			char *d = astra_pragma_describe(cur(P));
			astra_pragma_fail(P, cur(P), "expected '=' after '%.*s', found %s", (int)n->len, n->s, d);
			free(d);
			return -1;
		}
		P->i++;
		value = astra_pragma_expr(P, STOP_COMMA | STOP_RPAREN | STOP_ASSIGN, "an expression");
		if (!value)
			return -1;
		*slot = value;
		r = astra_pragma_list_next(P, 1, "a launch parameter");
		if (r)
			return r < 0 ? -1 : 0;
	}
}

/* A plain decimal number literal, if the whole text is one (1e-3f, 4, .5). */
static int numeric(const char *s, double *out)
{
	char *end;
	double v;
	if (!*s)
		return 0;
	v = strtod(s, &end);
	if (end == s)
		return 0;
	if (*end == 'f' || *end == 'F' || *end == 'l' || *end == 'L')
		end++;
	if (*end)
		return 0;
	*out = v;
	return 1;
}

static int clause_range(struct parser *P, const struct tok *kw)
{
	struct astra_pragma *p = P->p;
	const struct tok *names[32], *lo_tok;
	size_t nr = 0, k;
	char *lo, *hi;
	double a, b;
	(void)kw;
	for (;;) {
		const struct tok *n = astra_pragma_name(P, "the name of a parameter");
		if (!n)
			return -1;
		if (nr == ARRAY_SIZE(names)) {
			astra_pragma_fail(P, n, "too many names in one range()");
			return -1;
		}
		names[nr++] = n;
		if (is(cur(P), ",")) {
			P->i++;
			continue;
		}
		if (is(cur(P), ":")) {
			P->i++;
			break;
		}
		return astra_pragma_expected(P, "':' (range(x: lo .. hi))");
	}
	lo_tok = cur(P);
	lo = astra_pragma_expr(P, STOP_DOTDOT | STOP_RPAREN | STOP_COMMA, "a lower bound");
	if (!lo)
		return -1;
	if (!is(cur(P), "..")) {
		free(lo);
		return astra_pragma_expected(P, "'..' between the bounds");
	}
	P->i++;
	hi = astra_pragma_expr(P, STOP_RPAREN | STOP_COMMA, "an upper bound");
	if (!hi) {
		free(lo);
		return -1;
	}
	if (numeric(lo, &a) && numeric(hi, &b) && a > b) {
		astra_pragma_fail(P, lo_tok, "empty range: the lower bound %s is above the upper bound %s", lo, hi);
		free(lo);
		free(hi);
		return -1;
	}
	for (k = 0; k < nr; k++) {
		char *nm = tok_str(names[k]);
		size_t j;
		for (j = 0; j < p->nr_ranges; j++) {
			if (!strcmp(p->ranges[j].name, nm)) {
				astra_pragma_fail(P, names[k], "range of '%s' is given twice", nm);
				free(nm);
				free(lo);
				free(hi);
				return -1;
			}
		}
		ALLOC_GROW(p->ranges, p->nr_ranges + 1, p->alloc_ranges);
		p->ranges[p->nr_ranges].name = nm;
		p->ranges[p->nr_ranges].lo = xstrdup(lo);
		p->ranges[p->nr_ranges].hi = xstrdup(hi);
		p->ranges[p->nr_ranges].pos = pos_of(names[k]);
		p->nr_ranges++;
	}
	free(lo);
	free(hi);
	return astra_pragma_close_paren(P, "the upper bound");
}

static int clause_tolerance(struct parser *P, const struct tok *kw)
{
	struct astra_pragma *p = P->p;
	struct astra_tolerance t;
	const struct tok *at = kw;
	size_t j;

	t.name = NULL;
	t.rtol = t.atol = -1;
	if (cur(P)->kind == T_IDENT && is(peek(P, 1), ":")) {
		at = cur(P);
		t.name = tok_str(cur(P));
		P->i += 2;
	}
	for (;;) {
		const struct tok *n = astra_pragma_name(P, "rtol= or atol=");
		double *slot, v;
		char *text;
		const struct tok *vt;
		int r;
		if (!n)
			goto bad;
		if (tok_eq(n, "rtol"))
			slot = &t.rtol;
		else if (tok_eq(n, "atol"))
			slot = &t.atol;
		else {
			astra_pragma_fail(P, n, "unknown tolerance '%.*s'; expected rtol or atol", (int)n->len, n->s);
			goto bad;
		}
		if (*slot >= 0) {
			astra_pragma_fail(P, n, "'%.*s' is given twice", (int)n->len, n->s);
			goto bad;
		}
		if (!is(cur(P), "=")) {
			astra_pragma_expected(P, "'='");
			goto bad;
		}
		P->i++;
		vt = cur(P);
		if (is(vt, "-")) {
			astra_pragma_fail(P, vt, "a tolerance cannot be negative");
			goto bad;
		}
		if (is(vt, "+"))
			vt = &P->toks[++P->i];
		if (vt->kind != T_NUMBER) {
			astra_pragma_expected(P, "a number");
			goto bad;
		}
		text = tok_str(vt);
		if (!numeric(text, &v) || v != v) {
			astra_pragma_fail(P, vt, "expected a decimal number, found '%s'", text);
			free(text);
			goto bad;
		}
		free(text);
		*slot = v;
		P->i++;
		r = astra_pragma_list_next(P, 1, "a tolerance");
		if (r < 0)
			goto bad;
		if (r)
			break;
	}
	for (j = 0; j < p->nr_tolerances; j++) {
		const char *o = p->tolerances[j].name;
		if ((!o && !t.name) || (o && t.name && !strcmp(o, t.name))) {
			if (t.name)
				astra_pragma_fail(P, at, "tolerance of '%s' is given twice", t.name);
			else
				astra_pragma_fail(P, at, "the default tolerance is given twice");
			goto bad;
		}
	}
	t.pos = pos_of(at);
	ALLOC_GROW(p->tolerances, p->nr_tolerances + 1, p->alloc_tolerances);
	p->tolerances[p->nr_tolerances++] = t;
	return 0;
bad:
	free(t.name);
	return -1;
}

/* Is there a `,` outside brackets before the `)` that ends this clause? */
static int has_top_comma(const struct parser *P)
{
	size_t j;
	int depth = 0;
	for (j = P->i; j < P->nr && P->toks[j].kind != T_END; j++) {
		const struct tok *t = &P->toks[j];
		if (is(t, "(") || is(t, "[") || is(t, "{"))
			depth++;
		else if (is(t, ")") || is(t, "]") || is(t, "}")) {
			if (depth-- == 0)
				return 0;
		} else if (depth == 0 && is(t, ","))
			return 1;
	}
	return 0;
}

static int clause_tune(struct parser *P, const struct tok *kw)
{
	struct astra_pragma *p = P->p;
	struct astra_tunable *tn;
	const struct tok *n = astra_pragma_name(P, "the name of a tunable");
	unsigned stop;
	size_t j;
	char *nm;
	(void)kw;
	if (!n)
		return -1;
	if (!is(cur(P), ":"))
		return astra_pragma_expected(P, "':' (tune(NAME: v1 v2 ...))");
	P->i++;
	nm = tok_str(n);
	for (j = 0; j < p->nr_tunables; j++) {
		if (!strcmp(p->tunables[j].name, nm)) {
			astra_pragma_fail(P, n, "tunable '%s' is given twice", nm);
			free(nm);
			return -1;
		}
	}
	ALLOC_GROW(p->tunables, p->nr_tunables + 1, p->alloc_tunables);
	tn = &p->tunables[p->nr_tunables++];
	memset(tn, 0, sizeof(*tn));
	tn->name = nm;
	tn->pos = pos_of(n);
	stop = STOP_RPAREN | (has_top_comma(P) ? STOP_COMMA : STOP_SPACE);
	for (;;) {
		const struct tok *vt = cur(P);
		char *v = astra_pragma_expr(P, stop, "a value");
		if (!v)
			return -1;
		for (j = 0; j < tn->nr; j++) {
			if (!strcmp(tn->values[j], v)) {
				astra_pragma_fail(P, vt, "value %s of tunable '%s' is given twice", v, tn->name);
				free(v);
				return -1;
			}
		}
		ALLOC_GROW(tn->values, tn->nr + 1, tn->alloc);
		tn->values[tn->nr++] = v;
		if (is(cur(P), ")")) {
			P->i++;
			return 0;
		}
		if (is(cur(P), ","))
			P->i++;
		else if (cur(P)->kind == T_END)
			return astra_pragma_expected(P, "')'");
	}
}

/* flops(expr) and bytes(expr): one expression each, once. */
static int clause_figure(struct parser *P, const struct tok *kw, char **slot, const char *name)
{
	char *v;
	if (*slot) {
		astra_pragma_fail(P, kw, "%s() is given twice", name);
		return -1;
	}
	v = astra_pragma_expr(P, STOP_RPAREN, "an expression");
	if (!v)
		return -1;
	*slot = v;
	return astra_pragma_close_paren(P, "the expression");
}

static int clause_flops(struct parser *P, const struct tok *kw)
{
	return clause_figure(P, kw, &P->p->flops, "flops");
}

static int clause_bytes(struct parser *P, const struct tok *kw)
{
	return clause_figure(P, kw, &P->p->bytes, "bytes");
}

struct clause {
	const char *name;
	int (*parse)(struct parser *P, const struct tok *kw); /* NULL: a flag */
	unsigned flag;
};

static const struct clause clauses[] = {
	{ "optimize", NULL, ASTRA_PRAGMA_OPTIMIZE },
	{ "off", NULL, ASTRA_PRAGMA_OFF },
	{ "noalias", NULL, ASTRA_PRAGMA_NOALIAS },
	{ "shapes", clause_shapes, 0 },
	{ "buffers", clause_buffers, 0 },
	{ "outputs", clause_outputs, 0 },
	{ "launch", clause_launch, 0 },
	{ "types", clause_types, 0 },
	{ "scalars", clause_scalars, 0 },
	{ "range", clause_range, 0 },
	{ "tolerance", clause_tolerance, 0 },
	{ "tune", clause_tune, 0 },
	{ "flops", clause_flops, 0 },
	{ "bytes", clause_bytes, 0 },
};

/* Levenshtein distance, capped: enough for "did you mean". */
static size_t distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b), i, j, row[32];
	if (la >= ARRAY_SIZE(row) || lb >= ARRAY_SIZE(row))
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

static int clause(struct parser *P)
{
	const struct tok *t = cur(P);
	size_t k, best = 0, best_d = 99;
	if (t->kind != T_IDENT) {
		char *d = astra_pragma_describe(t);
		astra_pragma_fail(P, t, "expected a clause (optimize, shapes, buffers, outputs, launch, ...), found %s", d);
		free(d);
		return -1;
	}
	for (k = 0; k < ARRAY_SIZE(clauses); k++) {
		size_t d;
		if (tok_eq(t, clauses[k].name))
			break;
		d = distance(t->s, t->len, clauses[k].name);
		if (d < best_d)
			best_d = d, best = k;
	}
	if (k == ARRAY_SIZE(clauses)) {
		if (best_d <= 2)
			astra_pragma_fail(P, t, "unknown clause '%.*s'; did you mean '%s'?", (int)t->len, t->s, clauses[best].name);
		else
			astra_pragma_fail(P, t, "unknown clause '%.*s'; expected optimize, off, shapes, buffers, outputs, "
					  "launch, types, scalars, range, tolerance, tune, noalias, flops or bytes",
					  (int)t->len, t->s);
		return -1;
	}
	P->i++;
	P->p->nr_clauses++;
	if (clauses[k].flag != ASTRA_PRAGMA_OFF)
		P->p->flags |= ASTRA_PRAGMA_OPTIMIZE;
	if (!clauses[k].parse) {
		if (is(cur(P), "(")) {
			astra_pragma_fail(P, cur(P), "'%s' takes no arguments", clauses[k].name);
			return -1;
		}
		P->p->flags |= clauses[k].flag;
		return 0;
	}
	if (astra_pragma_open_paren(P, t) < 0)
		return -1;
	return clauses[k].parse(P, t);
}

int astra_pragma_parse(struct astra_pragma *p, const char *text, const char *file,
		       unsigned line, unsigned col, struct astra_diags *diags)
{
	struct parser P;
	memset(&P, 0, sizeof(P));
	P.p = p;
	P.file = file;
	P.diags = diags;
	if (!p->line)
		p->line = line;
	astra_pragma_lex(&P, text, line, col);
	while (cur(&P)->kind != T_END && !P.failed)
		clause(&P);
	free(P.toks);
	return P.failed ? -1 : 0;
}
