/*
 * print.c - the IR's canonical text (see ir.h and print.h).
 *
 * Integer index expressions are printed as sums of products, terms and
 * factors sorted, so that `blockIdx.x * blockDim.x + threadIdx.x` and
 * `threadIdx.x + blockDim.x * blockIdx.x` are one text
 * ("bdim.x*bid.x + tid.x").  Values are printed with the fewest
 * parentheses their operators need; numbers as %.9g (1.0f, 1. and 1 are
 * "1"); conversions are not printed; `a * a` is `a^2`.  With the kernel's
 * space, a load's flat index is printed as its logical indices:
 * `x[r*cols + c]` is `x[r,c]`, `out[c*rows + r]` is `out[c,r]`, a gather
 * `emb[ids[r]*cols + c]` is `emb[ids[r],c]`; in a flat space r is `i`.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "front/lex.h"
#include "ir/print.h"
#include "lib/util.h"
#include "lib/vec.h"

struct term {
	long coef;
	struct astra_vec f;          /* factors, sorted */
};

struct poly {
	struct term *t;
	size_t nr, alloc;
};

struct ctx {
	const struct astra_ir *ir;   /* NULL: raw indices */
};

static void print_node(const struct ctx *cx, const struct astra_ir_node *n, struct astra_buf *out, int prec);

static void poly_release(struct poly *p)
{
	size_t j;
	for (j = 0; j < p->nr; j++)
		astra_vec_clear(&p->t[j].f);
	free(p->t);
	memset(p, 0, sizeof(*p));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *term_key(const struct term *t)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t j;
	for (j = 0; j < t->f.nr; j++)
		astra_buf_addf(&b, "%s%s", j ? "*" : "", t->f.v[j]);
	return astra_buf_detach(&b, NULL);
}

/* Add term (coef, factors copied) to p, merging equal factor lists. */
static void poly_addterm(struct poly *p, long coef, const struct astra_vec *f)
{
	struct term t;
	char *k;
	size_t j;
	if (!coef)
		return;
	memset(&t, 0, sizeof(t));
	t.coef = coef;
	astra_vec_pushv(&t.f, f->v, f->nr);
	if (t.f.nr > 1)
		qsort(t.f.v, t.f.nr, sizeof(*t.f.v), cmp_str);
	k = term_key(&t);
	for (j = 0; j < p->nr; j++) {
		char *k2 = term_key(&p->t[j]);
		int same = !strcmp(k, k2);
		free(k2);
		if (same) {
			p->t[j].coef = (long)((unsigned long)p->t[j].coef + (unsigned long)coef); /* wraps, no UB */
			astra_vec_clear(&t.f);
			free(k);
			if (!p->t[j].coef) {
				astra_vec_clear(&p->t[j].f);
				memmove(&p->t[j], &p->t[j + 1], (p->nr - j - 1) * sizeof(*p->t));
				p->nr--;
			}
			return;
		}
	}
	free(k);
	ALLOC_GROW(p->t, p->nr + 1, p->alloc);
	p->t[p->nr++] = t;
}

static void poly_factor(struct poly *p, const char *factor)
{
	struct astra_vec f = ASTRA_VEC_INIT;
	astra_vec_push(&f, factor);
	poly_addterm(p, 1, &f);
	astra_vec_clear(&f);
}

static int parse_int(const char *s, long *v)
{
	char *end;
	if (!s || !*s || strchr(s, '.') || ((strchr(s, 'e') || strchr(s, 'E')) && !strstr(s, "0x")))
		return 0;
	*v = strtol(s, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	return *end == '\0';
}

static void poly_of(const struct astra_ir_node *n, struct poly *p);

static void poly_text(const struct poly *p, struct astra_buf *out)
{
	size_t *order = xmalloc((p->nr + 1) * sizeof(*order));
	char **keys = xmalloc((p->nr + 1) * sizeof(*keys));
	size_t j, m;
	for (j = 0; j < p->nr; j++) {
		keys[j] = term_key(&p->t[j]);
		order[j] = j;
	}
	/* insertion sort by key, constants last */
	for (j = 1; j < p->nr; j++)
		for (m = j; m > 0; m--) {
			const char *a = keys[order[m - 1]], *b = keys[order[m]];
			int swap = (!*a && *b) || (*a && *b && strcmp(a, b) > 0);
			if (!swap)
				break;
			{
				size_t x = order[m];
				order[m] = order[m - 1];
				order[m - 1] = x;
			}
		}
	if (!p->nr)
		astra_buf_addch(out, '0');
	for (j = 0; j < p->nr; j++) {
		const struct term *t = &p->t[order[j]];
		long c = t->coef;
		if (j)
			astra_buf_adds(out, c < 0 ? " - " : " + ");
		else if (c < 0)
			astra_buf_addch(out, '-');
		if (c < 0)
			c = (long)(0UL - (unsigned long)c);
		if (c != 1 || !t->f.nr)
			astra_buf_addf(out, "%ld%s", c, t->f.nr ? "*" : "");
		astra_buf_adds(out, keys[order[j]]);
	}
	for (j = 0; j < p->nr; j++)
		free(keys[j]);
	free(keys);
	free(order);
}

static void poly_binary(const struct astra_ir_node *n, struct poly *p)
{
	struct poly a = {0}, b = {0};
	long v;
	size_t i, j;
	poly_of(n->a[0], &a);
	poly_of(n->a[1], &b);
	if (!strcmp(n->s, "+") || !strcmp(n->s, "-")) {
		for (i = 0; i < a.nr; i++)
			poly_addterm(p, a.t[i].coef, &a.t[i].f);
		for (i = 0; i < b.nr; i++)
			poly_addterm(p, n->s[0] == '-' ? (long)(0UL - (unsigned long)b.t[i].coef) : b.t[i].coef, &b.t[i].f);
	} else if (!strcmp(n->s, "*") ||
		   (!strcmp(n->s, "<<") && n->a[1]->kind == IR_NUM && parse_int(n->a[1]->s, &v) && v >= 0 && v < 62)) {
		if (n->s[0] == '<') {
			poly_release(&b);
			poly_addterm(&b, 1L << v, &(struct astra_vec)ASTRA_VEC_INIT);
		}
		for (i = 0; i < a.nr; i++)
			for (j = 0; j < b.nr; j++) {
				struct astra_vec f = ASTRA_VEC_INIT;
				astra_vec_pushv(&f, a.t[i].f.v, a.t[i].f.nr);
				astra_vec_pushv(&f, b.t[j].f.v, b.t[j].f.nr);
				poly_addterm(p, (long)((unsigned long)a.t[i].coef * (unsigned long)b.t[j].coef), &f);
				astra_vec_clear(&f);
			}
	} else {
		struct astra_buf t = ASTRA_BUF_INIT;
		astra_buf_addch(&t, '(');
		poly_text(&a, &t);
		astra_buf_addf(&t, ")%s(", n->s);
		poly_text(&b, &t);
		astra_buf_addch(&t, ')');
		poly_factor(p, t.buf);
		astra_buf_release(&t);
	}
	poly_release(&a);
	poly_release(&b);
}

static void poly_of(const struct astra_ir_node *n, struct poly *p)
{
	long v;
	struct astra_buf t = ASTRA_BUF_INIT;
	switch (n->kind) {
	case IR_NUM:
		if (parse_int(n->s, &v)) {
			poly_addterm(p, v, &(struct astra_vec)ASTRA_VEC_INIT);
			return;
		}
		break;
	case IR_NAME:
	case IR_ATOM:
		poly_factor(p, n->s);
		return;
	case IR_CAST:
		poly_of(n->a[0], p);
		return;
	case IR_BIN:
		poly_binary(n, p);
		return;
	case IR_UN:
		if (!strcmp(n->s, "-")) {
			struct poly a = {0};
			size_t i;
			poly_of(n->a[0], &a);
			for (i = 0; i < a.nr; i++)
				poly_addterm(p, (long)(0UL - (unsigned long)a.t[i].coef), &a.t[i].f);
			poly_release(&a);
			return;
		}
		break;
	default:
		break;
	}
	print_node(NULL, n, &t, 100);
	poly_factor(p, t.buf);
	astra_buf_release(&t);
}

void astra_ir_print_poly(const struct astra_ir_node *n, struct astra_buf *out)
{
	struct poly p = {0};
	poly_of(n, &p);
	poly_text(&p, out);
	poly_release(&p);
}

long astra_ir_poly_constant(const struct astra_ir_node *n)
{
	struct poly p = {0};
	long c = 0;
	size_t i;
	poly_of(n, &p);
	for (i = 0; i < p.nr; i++)
		if (!p.t[i].f.nr)
			c = p.t[i].coef;
	poly_release(&p);
	return c;
}

/*
 * Split the flat index's poly by the logical indices: the coefficient of
 * r, of c, and the rest, each as text.  0 when a term has r or c twice or
 * both.
 */
static int split_index(const struct astra_ir_node *n, struct astra_buf *cr, struct astra_buf *cc, struct astra_buf *rest)
{
	struct poly p = {0}, pr = {0}, pc = {0}, px = {0};
	size_t i, j;
	int ok = 1;
	poly_of(n, &p);
	for (i = 0; i < p.nr; i++) {
		struct astra_vec f = ASTRA_VEC_INIT;
		int nr = 0, nc = 0;
		for (j = 0; j < p.t[i].f.nr; j++) {
			if (!strcmp(p.t[i].f.v[j], "r"))
				nr++;
			else if (!strcmp(p.t[i].f.v[j], "c"))
				nc++;
			else
				astra_vec_push(&f, p.t[i].f.v[j]);
		}
		if (nr + nc > 1)
			ok = 0;
		poly_addterm(nr ? &pr : nc ? &pc : &px, p.t[i].coef, &f);
		astra_vec_clear(&f);
	}
	if (pr.nr)
		poly_text(&pr, cr);
	if (pc.nr)
		poly_text(&pc, cc);
	if (px.nr)
		poly_text(&px, rest);
	poly_release(&p);
	poly_release(&pr);
	poly_release(&pc);
	poly_release(&px);
	return ok;
}

static int same(const struct astra_buf *b, const char *s)
{
	return s && b->len && !strcmp(b->buf, s);
}

/* A gather's row: rest == something*cols; print "something". */
static int rest_over_cols(const char *rest, const char *cols, struct astra_buf *out)
{
	size_t n = strlen(cols), m = strlen(rest);
	if (strstr(rest, " + ") || strstr(rest, " - "))
		return 0;
	if (m > n + 1 && !strcmp(rest + m - n, cols) && rest[m - n - 1] == '*') {
		astra_buf_add(out, rest, m - n - 1);
		return 1;
	}
	if (m > n + 1 && !strncmp(rest, cols, n) && rest[n] == '*') {
		astra_buf_adds(out, rest + n + 1);
		return 1;
	}
	return 0;
}

/* In a contraction: an index u * extent(v) + v of two of r, c, k is printed "u,v". */
static int print_pair(const struct ctx *cx, const struct astra_ir_node *n, struct astra_buf *out)
{
	static const char *const ax[] = {"r", "c", "k"};
	const char *ext[3];
	struct astra_buf t = ASTRA_BUF_INIT, u = ASTRA_BUF_INIT;
	int i, j, found = 0;
	if (!cx || !cx->ir || !cx->ir->inner || !cx->ir->cols)
		return 0;
	ext[0] = cx->ir->rows;
	ext[1] = cx->ir->cols;
	ext[2] = cx->ir->inner;
	astra_ir_print_poly(n, &t);
	for (i = 0; i < 3 && !found; i++)
		for (j = 0; j < 3 && !found; j++) {
			struct astra_ir_node a = {.kind = IR_ATOM, .s = ax[i]}, b = {.kind = IR_ATOM, .s = ax[j]};
			struct astra_ir_node e = {.kind = IR_NAME, .s = ext[j]}, *m2[2] = {&a, &e}, mul, *s2[2], sum;
			if (i == j || !ext[j])
				continue;
			memset(&mul, 0, sizeof(mul));
			mul.kind = IR_BIN;
			mul.s = "*";
			mul.a = m2;
			mul.nr = 2;
			s2[0] = &mul;
			s2[1] = &b;
			memset(&sum, 0, sizeof(sum));
			sum.kind = IR_BIN;
			sum.s = "+";
			sum.a = s2;
			sum.nr = 2;
			astra_buf_reset(&u);
			astra_ir_print_poly(&sum, &u);
			if (t.len && u.len && !strcmp(t.buf, u.buf)) {
				astra_buf_addf(out, "%s,%s", ax[i], ax[j]);
				found = 1;
			}
		}
	astra_buf_release(&t);
	astra_buf_release(&u);
	return found;
}

/* A flat space's index as its one-line form names it: the atom r printed i (in place; returns t). */
static char *flat_name(const char *rname, char *t)
{
	char *s;
	if (strcmp(rname, "i"))
		return t;
	for (s = t; *s; s++)
		if (*s == 'r' && (s == t || !astra_lex_ident_char(s[-1])) && !astra_lex_ident_char(s[1]))
			*s = 'i';
	return t;
}

static void print_index(const struct ctx *cx, const struct astra_ir_node *n, struct astra_buf *out)
{
	struct astra_buf cr = ASTRA_BUF_INIT, cc = ASTRA_BUF_INIT, rest = ASTRA_BUF_INIT;
	const char *rname = cx && cx->ir && !cx->ir->cols ? "i" : "r";
	int ok = cx && cx->ir && split_index(n, &cr, &cc, &rest);
	const char *rows = ok ? cx->ir->rows : NULL, *cols = ok ? cx->ir->cols : NULL;
	if (print_pair(cx, n, out)) {
		astra_buf_release(&cr);
		astra_buf_release(&cc);
		astra_buf_release(&rest);
		return;
	}
	if (ok && same(&cr, cols) && same(&cc, "1") && !rest.len)
		astra_buf_adds(out, "r,c");
	else if (ok && same(&cc, rows) && same(&cr, "1") && !rest.len)
		astra_buf_adds(out, "c,r");
	else if (ok && !cr.len && same(&cc, "1") && !rest.len)
		astra_buf_adds(out, "c");
	else if (ok && same(&cr, "1") && !cc.len && !rest.len)
		astra_buf_adds(out, rname);
	else if (ok && !cr.len && same(&cc, "1") && cols && rest_over_cols(rest.buf, cols, out))
		astra_buf_adds(out, ",c");
	else if (ok && !cr.len && !cc.len && rest.len)
		astra_buf_adds(out, flat_name(rname, rest.buf));
	else {
		struct astra_buf t = ASTRA_BUF_INIT;
		astra_ir_print_poly(n, &t);
		astra_buf_adds(out, t.buf ? flat_name(rname, t.buf) : "0");
		astra_buf_release(&t);
	}
	astra_buf_release(&cr);
	astra_buf_release(&cc);
	astra_buf_release(&rest);
}

static void print_number(const char *s, struct astra_buf *out)
{
	long v;
	if (parse_int(s, &v)) {
		astra_buf_addf(out, "%ld", v);
	} else if (strncmp(s, "0x", 2) && strncmp(s, "0X", 2)) {
		double d = strtod(s, NULL);
		astra_buf_addf(out, "%.9g", d);
	} else {
		astra_buf_adds(out, s);
	}
}

static int binprec(const char *op)
{
	static const struct { const char *op; int prec; } t[] = {
		{"||", 3}, {"&&", 4}, {"|", 5}, {"^", 6}, {"&", 7}, {"==", 8}, {"!=", 8}, {"<", 9}, {">", 9},
		{"<=", 9}, {">=", 9}, {"<<", 10}, {">>", 10}, {"+", 11}, {"-", 11}, {"*", 12}, {"/", 12}, {"%", 12},
	};
	size_t j;
	for (j = 0; j < sizeof(t) / sizeof(t[0]); j++)
		if (!strcmp(op, t[j].op))
			return t[j].prec;
	return 1;
}

/*
 * emit: n's text without parentheses around it, appended to out; returns
 * the precedence below which a context must put it in parentheses
 * (NO_PARENS: never).  Each subtree is printed once (printing an operand
 * again for each comparison made a deep expression exponential).
 */
#define NO_PARENS 1000

static void wrap(const char *text, int own, int prec, struct astra_buf *out)
{
	if (prec > own)
		astra_buf_addf(out, "(%s)", text);
	else
		astra_buf_adds(out, text);
}

static int emit(const struct ctx *cx, const struct astra_ir_node *n, struct astra_buf *out)
{
	size_t j;
	int p;
	switch (n->kind) {
	case IR_NUM:
		print_number(n->s, out);
		return NO_PARENS;
	case IR_NAME:
		astra_buf_adds(out, n->s);
		return NO_PARENS;
	case IR_ATOM:
		astra_buf_adds(out, cx && cx->ir && !cx->ir->cols && !strcmp(n->s, "r") ? "i" : n->s);
		return NO_PARENS;
	case IR_LOAD:
		astra_buf_addf(out, "%s[", n->s);
		print_index(cx, n->a[0], out);
		astra_buf_addch(out, ']');
		return NO_PARENS;
	case IR_CAST:
		/* only a local's declared type around a literal (lift-stmt.c as_declared) */
		astra_buf_addf(out, "(%s)", n->s);
		print_node(cx, n->a[0], out, 13);
		return 13;
	case IR_BIN: {
		struct astra_buf l = ASTRA_BUF_INIT, r = ASTRA_BUF_INIT, wl = ASTRA_BUF_INIT, wr = ASTRA_BUF_INIT;
		int lo, ro, swap = 0, own;
		p = binprec(n->s);
		own = p;
		lo = emit(cx, n->a[0], &l);
		ro = emit(cx, n->a[1], &r);
		if (!strcmp(n->s, "*")) {
			wrap(l.buf, lo, 13, &wl);
			wrap(r.buf, ro, 13, &wr);
			if (!strcmp(wl.buf, wr.buf)) {
				astra_buf_addf(out, "%s^2", wl.buf);
				own = NO_PARENS;
				goto done;
			}
			astra_buf_reset(&wl);
			astra_buf_reset(&wr);
		}
		{
			/* commutative operators: operands in a fixed order (floating-point + and * commute) */
			static const char *const comm[] = {"+", "*", "==", "!=", "&&", "||", "&", "|", "^", NULL};
			for (j = 0; comm[j]; j++)
				if (!strcmp(n->s, comm[j])) {
					wrap(l.buf, lo, p + 1, &wl);
					wrap(r.buf, ro, p + 1, &wr);
					swap = strcmp(wl.buf, wr.buf) > 0;
					break;
				}
		}
		wrap(swap ? r.buf : l.buf, swap ? ro : lo, p, out);
		astra_buf_addf(out, " %s ", n->s);
		wrap(swap ? l.buf : r.buf, swap ? lo : ro, p + 1, out);
	done:
		astra_buf_release(&l);
		astra_buf_release(&r);
		astra_buf_release(&wl);
		astra_buf_release(&wr);
		return own;
	}
	case IR_UN:
		astra_buf_adds(out, n->s);
		print_node(cx, n->a[0], out, 13);
		return 13;
	case IR_COND:
		print_node(cx, n->a[0], out, 3);
		astra_buf_adds(out, " ? ");
		print_node(cx, n->a[1], out, 3);
		astra_buf_adds(out, " : ");
		print_node(cx, n->a[2], out, 2);
		return 2;
	case IR_CALL:
		astra_buf_addf(out, "%s(", n->s);
		for (j = 0; j < n->nr; j++) {
			if (j)
				astra_buf_adds(out, ", ");
			print_node(cx, n->a[j], out, 2);
		}
		astra_buf_addch(out, ')');
		return NO_PARENS;
	case IR_RED:
	case IR_PARTIAL:
		astra_buf_addf(out, "%s%s_%s(", n->kind == IR_PARTIAL ? "partial_" : "", n->s,
			       cx && cx->ir && !cx->ir->cols && !strcmp(n->axis, "r") ? "i" : n->axis);
		print_node(cx, n->a[0], out, 0);
		if (n->nr > 1) {
			/* a running value over k that starts from a value of its own */
			astra_buf_adds(out, "; start ");
			print_node(cx, n->a[1], out, 0);
		}
		astra_buf_addch(out, ')');
		return NO_PARENS;
	case IR_PTR:
		astra_buf_addf(out, "&%s[", n->s);
		print_index(cx, n->a[0], out);
		astra_buf_addch(out, ']');
		return NO_PARENS;
	case IR_SHARED:
		astra_buf_addf(out, "shared %s", n->s);
		return NO_PARENS;
	case IR_INDEX:
		print_node(cx, n->a[0], out, 14);
		astra_buf_addch(out, '[');
		print_node(cx, n->a[1], out, 0);
		astra_buf_addch(out, ']');
		return NO_PARENS;
	case IR_MEMBER:
		print_node(cx, n->a[0], out, 14);
		astra_buf_addf(out, ".%s", n->s);
		return NO_PARENS;
	case IR_ASSIGN:
		print_node(cx, n->a[0], out, 2);
		astra_buf_addf(out, " %s ", n->s);
		print_node(cx, n->a[1], out, 1);
		return NO_PARENS;
	case IR_INCDEC:
		print_node(cx, n->a[0], out, 14);
		astra_buf_adds(out, n->s);
		return NO_PARENS;
	}
	return NO_PARENS;
}

/* n's text in a context of precedence prec, appended to out. */
static void print_node(const struct ctx *cx, const struct astra_ir_node *n, struct astra_buf *out, int prec)
{
	struct astra_buf t = ASTRA_BUF_INIT;
	int own = emit(cx, n, &t);
	wrap(t.buf, own, prec, out);
	astra_buf_release(&t);
}

void astra_ir_print_expr(const struct astra_ir_node *n, struct astra_buf *out)
{
	print_node(NULL, n, out, 0);
}

void astra_ir_print(const struct astra_ir *ir, struct astra_buf *out)
{
	struct ctx cx;
	size_t j;
	cx.ir = ir;
	for (j = 0; j < ir->nr_stores; j++) {
		const struct astra_ir_store *s = &ir->stores[j];
		struct astra_ir_node load;
		memset(&load, 0, sizeof(load));
		load.kind = IR_LOAD;
		load.s = s->buf;
		load.a = (struct astra_ir_node **)&s->index;
		load.nr = 1;
		if (j)
			astra_buf_adds(out, "; ");
		print_node(&cx, &load, out, 0);
		astra_buf_adds(out, s->accumulate ? " += " : " = ");
		print_node(&cx, s->value, out, 0);
	}
	/* an extent with a first index other than 0 is printed lo..hi */
	astra_buf_addf(out, "  (%s=%s%s%s", ir->cols ? "rows" : "n", ir->rows_lo ? ir->rows_lo : "",
		       ir->rows_lo ? ".." : "", ir->rows ? ir->rows : "?");
	if (ir->cols)
		astra_buf_addf(out, ", cols=%s%s%s", ir->cols_lo ? ir->cols_lo : "", ir->cols_lo ? ".." : "", ir->cols);
	if (ir->cols && ir->inner)
		astra_buf_addf(out, ", k=%s", ir->inner);
	astra_buf_addch(out, ')');
}
