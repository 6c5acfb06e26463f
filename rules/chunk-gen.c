/*
 * chunk-gen.c - the chunk rewrite's text (chunk-int.h): a loop's body per
 * element, its vector and scalar paths, the alignment tests, the dead
 * scalar accesses.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "rules/chunk-int.h"

/* ------------------------------------------------------------ generate */

static char *subst_i0(const char *s, const char *i0)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *p;
	while ((p = strstr(s, "@I0@")) != NULL) {
		astra_buf_add(&b, s, (size_t)(p - s));
		astra_buf_adds(&b, i0);
		s = p + 4;
	}
	astra_buf_adds(&b, s);
	return astra_buf_detach(&b, NULL);
}

/* "&base[index at i0]" */
char *astra_chunk_addr(struct group *g, const char *i0)
{
	char *ix = subst_i0(g->index, i0), *r = xasprintf("&%s[%s]", g->base, ix);
	free(ix);
	return r;
}

char *astra_chunk_bytes_expr(struct ck *c, struct group *g)
{
	return xasprintf("%d * (int)sizeof(%s)", c->ept * g->stride, g->elem);
}

/* Chunk-wide conditions: whole chunk and divisions that keep it in one row. */
static void full_cond(struct ck *c, const char *i0, struct astra_buf *b)
{
	struct unit *u = c->u;
	struct astra_vec seen = ASTRA_VEC_INIT;
	size_t i;
	astra_buf_addf(b, "%s + %d <= (%s)", i0, c->ept, u->limit);
	for (i = 0; i < u->divisors.nr; i++) {
		char *d;
		if (astra_vec_find(&seen, u->divisors.v[i]) >= 0)
			continue;
		astra_vec_push(&seen, u->divisors.v[i]);
		d = subst_i0(u->divisors.v[i], i0);
		astra_buf_addf(b, " && (%s) %% %d == 0", d, c->ept);
		free(d);
	}
	astra_vec_clear(&seen);
}

/* Alignment of every vectorized access, and no overlap between chunks of a written pointer. */
static void align_cond(struct ck *c, const char *i0, struct astra_buf *b)
{
	struct unit *u = c->u;
	int gi, gj;
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		char *a, *by;
		if (!g->mode)
			continue;
		a = astra_chunk_addr(g, i0);
		by = astra_chunk_bytes_expr(c, g);
		astra_buf_addf(b, "%s%s(%s, (%s) < 16 ? (%s) : 16)", b->len ? " &&\n\t\t    " : "", ASTRA_HELPER("al"), a,
			       by, by);
		free(a);
		free(by);
	}
	for (gi = 0; gi < u->nr_groups; gi++)
		for (gj = gi + 1; gj < u->nr_groups; gj++) {
			struct group *x = &u->groups[gi], *y = &u->groups[gj];
			char *ax, *ay;
			if (!x->mode || !y->mode || x->param != y->param || (!x->writes && !y->writes))
				continue;
			ax = astra_chunk_addr(x, i0);
			ay = astra_chunk_addr(y, i0);
			astra_buf_addf(b, " &&\n\t\t    ((%s) - (%s) >= %d || (%s) - (%s) >= %d)", ax, ay, c->ept * y->stride, ay, ax,
				       c->ept * x->stride);
			free(ax);
			free(ay);
		}
	if (!b->len)
		astra_buf_adds(b, "true");
}

/* Is the access replaced by a register element in the vector path? */
int astra_chunk_replaced(struct ck *c, const struct access *a)
{
	return a->group >= 0 && c->u->groups[a->group].mode && a->e->kind == EX_INDEX;
}

/*
 * In the vector path, which top-level declarations of BODY are dead once
 * the vectorized accesses use registers (the row and column indices
 * computed only to index them)?  Sets u->hoist[i] = 2 for those.
 */
void astra_chunk_find_dead(struct ck *c)
{
	struct unit *u = c->u;
	size_t t0 = astra_chunk_body_t0(c), t1 = astra_chunk_body_t1(c), t, i, k;
	char *dead = xcalloc(t1 - t0 + 1, 1);
	int changed = 1;
	for (i = 0; i < u->nr_stmts; i++)
		if (u->hoist[i])
			memset(dead + (u->stmts[i]->t0 - t0), 1, u->stmts[i]->t1 - u->stmts[i]->t0);
	for (i = 0; i < u->nr_acc; i++)
		if (astra_chunk_replaced(c, &u->acc[i]))
			memset(dead + (u->acc[i].e->b->t0 - t0), 1, u->acc[i].e->b->t1 - u->acc[i].e->b->t0);
	while (changed) {
		changed = 0;
		for (i = 0; i < u->nr_stmts; i++) {
			struct astra_stmt *st = u->stmts[i];
			struct astra_decl *d = NULL;
			char *nm;
			int used = 0;
			if (u->hoist[i] || st->kind != STMT_DECL || astra_syn_decls(c->syn, st->a0, st->a1, &d) != 1) {
				free(d);
				continue;
			}
			if (d[0].init1 <= d[0].init0 || d[0].is_array || astra_chunk_has_side_effects(c, d[0].init0, d[0].init1)) {
				free(d);
				continue;
			}
			nm = astra_syn_tokstr(c->syn, d[0].name);
			for (t = t0; t < t1 && !used; t++) {
				if (dead[t - t0] || (t >= st->t0 && t < st->t1))
					continue;
				if (c->syn->toks[t].kind == SYN_IDENT && astra_syn_is(c->syn, t, nm) &&
				    !(t > 0 && (astra_syn_is(c->syn, t - 1, ".") || astra_syn_is(c->syn, t - 1, "->"))))
					used = 1;
			}
			if (!used) {
				u->hoist[i] = 2;
				for (k = st->t0; k < st->t1; k++)
					dead[k - t0] = 1;
				changed = 1;
			}
			free(nm);
			free(d);
		}
	}
	free(dead);
}

/*
 * In the vector path the chunk lies in one row of every divisor D
 * (full_cond), so for element k of the chunk at i0, i / D is i0 / D and
 * i % D is i0 % D + k: the divisions are computed once per chunk instead
 * of once per element.  Nodes inside text that another edit replaces
 * (taken[] over the body's tokens) are left alone.
 */
struct divs {
	struct ck *c;
	struct astra_syn_edits *e;
	const char *i0, *k;
	const char *taken;
	size_t t0;
};

static int div_expr(struct astra_expr *e, void *data)
{
	struct divs *d = data;
	struct ck *c = d->c;
	const struct astra_expr *x;
	char *dv;
	int is_div;
	size_t t;
	if (e->kind != EX_BINARY || !(astra_syn_is(c->syn, e->op, "/") || astra_syn_is(c->syn, e->op, "%")))
		return 0;
	for (x = e->a; x->kind == EX_PAREN; x = x->a)
		;
	if (x->kind != EX_IDENT || x->t1 != x->t0 + 1 || !astra_chunk_tok_is_var(c, x->t0))
		return 0;
	for (t = e->t0; t < e->t1; t++)
		if (t < d->t0 || d->taken[t - d->t0])
			return 0;
	dv = astra_syn_text(c->syn, e->b->t0, e->b->t1);
	if (astra_vec_find(&c->u->divisors, dv) < 0) {
		free(dv);
		return 0;
	}
	is_div = astra_syn_is(c->syn, e->op, "/");
	astra_syn_edit_owned(d->e, astra_syn_off(c->syn, e->t0), astra_syn_end(c->syn, e->t1 - 1),
			      is_div ? xasprintf("((%s) / (%s))", d->i0, dv) :
				       xasprintf("((%s) %% (%s) + %s)", d->i0, dv, d->k));
	free(dv);
	for (t = e->t0; t < e->t1; t++)
		((char *)d->taken)[t - d->t0] = 1;
	return 0;
}

static int div_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e,
		    void *data)
{
	(void)f;
	(void)s;
	(void)t0;
	(void)t1;
	if (e)
		astra_expr_walk(e, div_expr, data);
	return 0;
}

/*
 * BODY's text: vectorized accesses become register elements, dead
 * statements go, and hoisted ones too unless keep_hoisted.  With i0 (the
 * vector path of a chunk that stays in one row), divisions of the loop
 * index by a divisor become per-chunk values (see div_expr).
 */
static int body_text3(struct ck *c, const char *elem_k, const char *i0, struct astra_buf *out, int vector,
		      int keep_hoisted)
{
	struct unit *u = c->u;
	struct astra_syn_edits e = { NULL, 0, 0 };
	size_t i;
	int r;
	char *taken = NULL;
	size_t bt0 = astra_chunk_body_t0(c), bt1 = astra_chunk_body_t1(c);
	if (vector && i0) {
		taken = xcalloc(bt1 - bt0 + 1, 1);
		for (i = 0; i < u->nr_stmts; i++)
			if (u->hoist[i] == 2 || (u->hoist[i] == 1 && !keep_hoisted))
				memset(taken + (u->stmts[i]->t0 - bt0), 1, u->stmts[i]->t1 - u->stmts[i]->t0);
		for (i = 0; i < u->nr_acc; i++)
			if (astra_chunk_replaced(c, &u->acc[i]))
				memset(taken + (u->acc[i].e->t0 - bt0), 1, u->acc[i].e->t1 - u->acc[i].e->t0);
	}
	if (vector) {
		for (i = 0; i < u->nr_stmts; i++)
			if (u->hoist[i] == 2 || (u->hoist[i] == 1 && !keep_hoisted))
				astra_syn_edit(&e, astra_syn_off(c->syn, u->stmts[i]->t0),
						astra_syn_end(c->syn, u->stmts[i]->t1 - 1), "");
		for (i = 0; i < u->nr_acc; i++) {
			struct access *a = &u->acc[i];
			size_t k, inside = 0;
			if (a->group < 0 || !u->groups[a->group].mode || a->e->kind != EX_INDEX)
				continue;
			for (k = 0; k < u->nr_stmts; k++)
				if ((u->hoist[k] == 2 || (u->hoist[k] == 1 && !keep_hoisted)) && a->e->t0 >= u->stmts[k]->t0 &&
				    a->e->t0 < u->stmts[k]->t1)
					inside = 1; /* the statement goes as a whole */
			if (inside)
				continue;
			if (u->groups[a->group].stride == 2)
				astra_syn_edit_owned(&e, astra_syn_off(c->syn, a->e->t0), astra_syn_end(c->syn, a->e->t1 - 1),
						      xasprintf("%s_v%d[2 * %s + %d]", c->pfx, a->group, elem_k, a->lane));
			else if (u->groups[a->group].reg)
				astra_syn_edit_owned(&e, astra_syn_off(c->syn, a->e->t0), astra_syn_end(c->syn, a->e->t1 - 1),
						      xasprintf("%s[%s]", u->groups[a->group].reg, elem_k));
			else
				astra_syn_edit_owned(&e, astra_syn_off(c->syn, a->e->t0), astra_syn_end(c->syn, a->e->t1 - 1),
						      xasprintf("%s_v%d[%s]", c->pfx, a->group, elem_k));
		}
	}
	if (taken) {
		struct divs d = { c, &e, i0, elem_k, taken, bt0 };
		for (i = 0; i < u->nr_stmts; i++)
			if (!(u->hoist[i] == 2 || (u->hoist[i] == 1 && !keep_hoisted)))
				astra_facts_each_part(&c->f, u->stmts[i], div_part, &d);
		free(taken);
	}
	r = astra_syn_apply(c->rk->text, u->body_off, u->body_end, &e, out);
	astra_syn_edits_release(&e);
	return r;
}

int astra_chunk_body_text2(struct ck *c, const char *elem_k, struct astra_buf *out, int vector, int keep_hoisted)
{
	return body_text3(c, elem_k, NULL, out, vector, keep_hoisted);
}

static int body_text(struct ck *c, const char *elem_k, struct astra_buf *out, int vector)
{
	return astra_chunk_body_text2(c, elem_k, out, vector, 0);
}

void astra_chunk_indent(struct astra_buf *b, int n)
{
	while (n-- > 0)
		astra_buf_addch(b, '\t');
}

/* Width (tabs count 8) of the whitespace in front of byte off's line. */
static int width_before(const char *text, size_t off)
{
	size_t ls = off;
	int w = 0;
	while (ls > 0 && text[ls - 1] != '\n')
		ls--;
	for (; ls < off && (text[ls] == ' ' || text[ls] == '\t'); ls++)
		w = text[ls] == '\t' ? (w / 8 + 1) * 8 : w + 1;
	return w;
}

/*
 * Append BODY's text (which began at byte body_off of the kernel) indented
 * by ind tabs: a braced block loses its braces (it is the body of the loop
 * the rewrite puts around it), blank lines go, relative indentation stays.
 */
void astra_chunk_add_body(struct ck *c, const char *text, int ind, struct astra_buf *b)
{
	const char *p = text, *end = text + strlen(text);
	int first_w = width_before(c->rk->text, c->u->body_off), minw = 1 << 20, pass;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
		end--;
	if (p < end && *p == '{' && end[-1] == '}' && !c->u->multi) {
		/* is the opening brace matched by the last one? */
		int depth = 0;
		const char *q;
		for (q = p; q < end; q++) {
			if (*q == '{')
				depth++;
			else if (*q == '}' && --depth == 0)
				break;
		}
		if (q == end - 1) {
			p++;
			end--;
			first_w += 8;
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (p < end && *p == '\n')
				first_w = -1; /* the first line is blank: measure the others */
		}
	}
	for (pass = 0; pass < 2; pass++) {
		const char *l = p;
		int lineno = 0;
		while (l < end) {
			const char *e = memchr(l, '\n', (size_t)(end - l)), *q;
			int w = 0, blank = 1;
			if (!e)
				e = end;
			for (q = l; q < e && (*q == ' ' || *q == '\t'); q++)
				w = *q == '\t' ? (w / 8 + 1) * 8 : w + 1;
			for (const char *x = q; x < e; x++)
				if (*x != ' ' && *x != '\t' && *x != '\r')
					blank = 0;
			if (lineno == 0 && l == p && first_w >= 0)
				w = first_w;
			if (!blank) {
				if (pass == 0) {
					if (w < minw)
						minw = w;
				} else {
					int nw = ind * 8 + w - minw, k;
					for (k = 0; k < nw / 8; k++)
						astra_buf_addch(b, '\t');
					for (k = 0; k < nw % 8; k++)
						astra_buf_addch(b, ' ');
					astra_buf_add(b, q, (size_t)(e - q));
					astra_buf_addch(b, '\n');
				}
			}
			lineno++;
			l = e < end ? e + 1 : end;
		}
	}
}

/* Does text use the identifier name? */
int astra_chunk_text_mentions(const char *text, const char *name)
{
	struct astra_syn syn;
	int r;
	if (astra_syn_lex(&syn, text, strlen(text)) < 0)
		return 1;
	r = astra_syn_mentions(&syn, 0, syn.nr_toks, name);
	astra_syn_release(&syn);
	return r;
}

/*
 * The hoisted statements, the loop index replaced by i0.  A declaration
 * that neither `uses` (the code after them) nor a later kept statement
 * mentions is left out.
 */
static void hoisted_text(struct ck *c, const char *i0, int ind, const char *uses, size_t from, size_t to,
			 struct astra_buf *b)
{
	struct unit *u = c->u;
	size_t i, t;
	char *keep = xcalloc(u->nr_stmts + 1, 1);
	struct astra_buf later = ASTRA_BUF_INIT;
	astra_buf_adds(&later, uses);
	for (i = u->nr_stmts; i-- > 0;) {
		struct astra_stmt *st = u->stmts[i];
		struct astra_decl *d = NULL;
		size_t n, k;
		char *txt;
		if (u->hoist[i] != 1)
			continue;
		keep[i] = 1;
		if (st->kind == STMT_DECL && (n = astra_syn_decls(c->syn, st->a0, st->a1, &d)) > 0) {
			keep[i] = 0;
			for (k = 0; k < n; k++) {
				char *nm = astra_syn_tokstr(c->syn, d[k].name);
				if (astra_chunk_text_mentions(later.buf, nm))
					keep[i] = 1;
				free(nm);
			}
		}
		free(d);
		if (keep[i]) {
			txt = astra_syn_text(c->syn, st->t0, st->t1);
			astra_buf_addf(&later, "\n%s", txt);
			free(txt);
		}
	}
	astra_buf_release(&later);
	for (i = from; i < to && i < u->nr_stmts; i++) {
		struct astra_syn_edits e = { NULL, 0, 0 };
		struct astra_stmt *st = u->stmts[i];
		if (u->hoist[i] != 1 || !keep[i])
			continue;
		for (t = st->t0; t < st->t1; t++)
			if (astra_chunk_tok_is_var(c, t))
				astra_syn_edit_owned(&e, c->syn->toks[t].off, c->syn->toks[t].off + c->syn->toks[t].len,
						      xasprintf("(%s)", i0));
		astra_chunk_indent(b, ind);
		astra_syn_apply(c->rk->text, astra_syn_off(c->syn, st->t0), astra_syn_end(c->syn, st->t1 - 1), &e, b);
		astra_buf_addch(b, '\n');
		astra_syn_edits_release(&e);
	}
	free(keep);
}

/*
 * How many of BODY's first statements the chunk's conditions (al: the
 * alignment and overlap checks, which name every vectorized address)
 * need: the hoisted statements from there on run after the vector loads,
 * so that the loads are not held back by what the statements compute
 * (loads of per-row values, exponentials), and their latencies overlap.
 * Hoisted statements are declarations with chunk-invariant initializers
 * and assignments to them: moving the later ones past the loads keeps
 * their order, and the loads read memory nothing in between writes.
 */
static size_t hoist_cut(struct ck *c, const char *al)
{
	struct unit *u = c->u;
	struct astra_buf later = ASTRA_BUF_INIT;
	size_t i, cut = 0;
	astra_buf_adds(&later, al);
	for (i = u->nr_stmts; i-- > 0;) {
		struct astra_stmt *st = u->stmts[i];
		struct astra_decl *d = NULL;
		size_t n, k;
		int needed = 0;
		if (u->hoist[i] != 1)
			continue;
		if (st->kind == STMT_DECL && (n = astra_syn_decls(c->syn, st->a0, st->a1, &d)) > 0) {
			for (k = 0; k < n && !needed; k++) {
				char *nm = astra_syn_tokstr(c->syn, d[k].name);
				needed = astra_chunk_text_mentions(later.buf, nm);
				free(nm);
			}
		} else if (st->kind == STMT_EXPR && astra_syn_is_ident(c->syn, st->a0)) {
			char *nm = astra_syn_tokstr(c->syn, st->a0);
			needed = astra_chunk_text_mentions(later.buf, nm);
			free(nm);
		} else {
			needed = 1;
		}
		free(d);
		if (needed) {
			char *txt = astra_syn_text(c->syn, st->t0, st->t1);
			astra_buf_addf(&later, "\n%s", txt);
			free(txt);
			if (!cut)
				cut = i + 1;
		}
	}
	astra_buf_release(&later);
	return cut;
}

/*
 * The vector path for the chunk at i0: loads, the hoisted statements
 * from cut on (their text in late), EPT unrolled bodies, stores.
 */
static int gen_vector(struct ck *c, const char *i0, int ind, const char *late, struct astra_buf *b)
{
	struct unit *u = c->u;
	int gi;
	char *k = xasprintf("%s_k", c->pfx);
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		char *by;
		if (!g->mode)
			continue;
		astra_chunk_indent(b, ind);
		astra_buf_addf(b, "alignas(16) %s %s_v%d[%d];\n", g->elem, c->pfx, gi, c->ept * g->stride);
		if (g->mode == 'R' || g->mode == 'X') {
			char *a = astra_chunk_addr(g, i0);
			by = astra_chunk_bytes_expr(c, g);
			astra_chunk_indent(b, ind);
			astra_buf_addf(b, "%s<%s>(%s_v%d, %s);\n", g->ldg ? ASTRA_HELPER("ldg") : ASTRA_HELPER("ld"), by,
				       c->pfx, gi, a);
			free(a);
			free(by);
		}
	}
	if (late)
		astra_buf_adds(b, late);
	{
		/* i0 >= 0 (a thread's chunk), so i0 % D + k is never 0 for k > 0: the
		 * compiler drops per-element work guarded by `i % D == 0` */
		struct astra_buf bt = ASTRA_BUF_INIT;
		struct astra_vec seen = ASTRA_VEC_INIT;
		size_t i;
		if (body_text3(c, k, i0, &bt, 1, 0) == 0)
			for (i = 0; i < u->divisors.nr; i++) {
				char *pat = xasprintf("((%s) %% (%s) + %s)", i0, u->divisors.v[i], k);
				if (astra_vec_find(&seen, u->divisors.v[i]) < 0 && strstr(bt.buf, pat)) {
					astra_vec_push(&seen, u->divisors.v[i]);
					astra_chunk_indent(b, ind);
					astra_buf_addf(b, "__builtin_assume((%s) %% (%s) >= 0);\n", i0, u->divisors.v[i]);
				}
				free(pat);
			}
		astra_vec_clear(&seen);
		astra_buf_release(&bt);
	}
	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "#pragma unroll\n");
	astra_chunk_indent(b, ind);
	astra_buf_addf(b, "for (int %s = 0; %s < %d; ++%s) {\n", k, k, c->ept, k);
	{
		struct astra_buf bt = ASTRA_BUF_INIT;
		if (u->prologue)
			astra_buf_addf(&bt, "%s\n", u->prologue);
		if (body_text3(c, k, i0, &bt, 1, 0) < 0) {
			astra_buf_release(&bt);
			free(k);
			return -1;
		}
		if (astra_chunk_text_mentions(bt.buf, u->var)) {
			astra_chunk_indent(b, ind + 1);
			astra_buf_addf(b, "%s %s = %s + %s;\n", u->var_type, u->var, i0, k);
		}
		astra_chunk_add_body(c, bt.buf, ind + 1, b);
		astra_buf_release(&bt);
	}
	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "}\n");
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		if (g->mode == 'W' || g->mode == 'X') {
			char *a = astra_chunk_addr(g, i0), *by = astra_chunk_bytes_expr(c, g);
			astra_chunk_indent(b, ind);
			astra_buf_addf(b, "%s<%s>(%s, %s_v%d);\n", ASTRA_HELPER("st"), by, a, c->pfx, gi);
			free(a);
			free(by);
		}
	}
	free(k);
	return 0;
}

/*
 * The element-by-element path for the chunk at i0: the original body, for
 * each of the chunk's elements below the limit.  The loop has a constant
 * trip count and is unrolled, so a thread's loads of its elements are in
 * flight together: this path runs at small or odd sizes (a row length
 * that is not a multiple of the vector width), where the original had one
 * element per thread, and a loop whose loads waited for each other made
 * variants slower there than the original (seen on an H200: 5.3 us instead
 * of 4.3 us for silu_and_mul at tokens=3, d=1001).
 */
static int gen_scalar(struct ck *c, const char *i0, int ind, struct astra_buf *b)
{
	struct unit *u = c->u;
	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "#pragma unroll\n");
	astra_chunk_indent(b, ind);
	astra_buf_addf(b, "for (int %s_s = 0; %s_s < %d; ++%s_s) {\n", c->pfx, c->pfx, c->ept, c->pfx);
	astra_chunk_indent(b, ind + 1);
	astra_buf_addf(b, "%s %s = %s + %s_s;\n", u->var_type, u->var, i0, c->pfx);
	astra_chunk_indent(b, ind + 1);
	astra_buf_addf(b, "if (%s < (%s)) {\n", u->var, u->limit);
	if (u->prologue) {
		astra_chunk_indent(b, ind + 2);
		astra_buf_addf(b, "%s\n", u->prologue);
	}
	{
		struct astra_buf bt = ASTRA_BUF_INIT;
		if (body_text(c, NULL, &bt, 0) < 0) {
			astra_buf_release(&bt);
			return -1;
		}
		astra_chunk_add_body(c, bt.buf, ind + 2, b);
		astra_buf_release(&bt);
	}
	astra_chunk_indent(b, ind + 1);
	astra_buf_adds(b, "}\n");
	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "}\n");
	return 0;
}

/*
 * One chunk at i0 (known to start below the limit):
 *   if (whole chunk in one row) { hoisted; if (aligned) vector; else scalar; } else scalar;
 */
int astra_chunk_gen_chunk(struct ck *c, const char *i0, int ind, struct astra_buf *b)
{
	struct astra_buf full = ASTRA_BUF_INIT, al = ASTRA_BUF_INIT;
	int r;
	struct astra_buf vec = ASTRA_BUF_INIT, sca = ASTRA_BUF_INIT, late = ASTRA_BUF_INIT;
	size_t cut;
	full_cond(c, i0, &full);
	align_cond(c, i0, &al);
	cut = hoist_cut(c, al.buf);
	r = gen_vector(c, i0, ind + 2, NULL, &vec);
	if (!r && cut < c->u->nr_stmts) {
		/* what the hoisted values are used by: the vector path (the scalar one redeclares them) */
		char *uses = xasprintf("%s\n%s", al.buf, vec.buf);
		hoisted_text(c, i0, ind + 2, uses, cut, c->u->nr_stmts, &late);
		free(uses);
		if (late.len) {
			astra_buf_reset(&vec);
			r = gen_vector(c, i0, ind + 2, late.buf, &vec);
		}
	}
	if (!r)
		r = gen_scalar(c, i0, ind + 2, &sca);
	astra_chunk_indent(b, ind);
	astra_buf_addf(b, "if (%s) {\n", full.buf);
	{
		char *uses = xasprintf("%s\n%s", al.buf, vec.buf);
		hoisted_text(c, i0, ind + 1, uses, 0, cut, b);
		free(uses);
	}
	astra_buf_release(&late);
	astra_chunk_indent(b, ind + 1);
	astra_buf_addf(b, "if (%s) {\n", al.buf);
	astra_buf_adds(b, vec.buf);
	astra_chunk_indent(b, ind + 1);
	astra_buf_adds(b, "} else {\n");
	astra_buf_adds(b, sca.buf);
	astra_buf_release(&vec);
	astra_buf_release(&sca);
	astra_chunk_indent(b, ind + 1);
	astra_buf_adds(b, "}\n");
	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "} else {\n");
	if (!r)
		r = gen_scalar(c, i0, ind + 1, b);
	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "}\n");
	astra_buf_release(&full);
	astra_buf_release(&al);
	return r;
}

/* Indentation (in tabs; 8 spaces count as one) of the line holding off. */
int astra_chunk_line_indent(struct ck *c, size_t off)
{
	const char *t = c->rk->text;
	size_t ls = off, spaces = 0;
	int tabs = 0;
	while (ls > 0 && t[ls - 1] != '\n')
		ls--;
	for (; ls < off && (t[ls] == '\t' || t[ls] == ' '); ls++) {
		if (t[ls] == '\t')
			tabs++;
		else
			spaces++;
	}
	return tabs + (int)(spaces / 8);
}

/* The replacement of a distributed loop. */
int astra_chunk_gen_loop(struct ck *c, struct astra_buf *b)
{
	struct unit *u = c->u;
	int ind = astra_chunk_line_indent(c, astra_syn_off(c->syn, u->stmt->t0));
	char *i0 = xasprintf("%s_i0", c->pfx);
	int r;

	astra_buf_addf(b, "for (%s %s = (%s) * %d; %s < (%s); %s += (%s) * %d) {\n", u->var_type, i0, u->start,
		       c->ept, i0, u->limit, i0, u->stride, c->ept);
	r = astra_chunk_gen_chunk(c, i0, ind + 1, b);
	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "}");
	free(i0);
	return r;
}

