/*
 * r-select.c - rule "select-regs": a warp's repeated argmax selection
 * (the top-k of a row) reads the row from registers and marks the chosen
 * elements in a bit mask.
 *
 * It applies after warp-per-row, to the shape that rule gives a top-k
 * selection written the first way:
 *
 *	for (int j = 0; j < K; j++) {
 *		...
 *		for (int e = LANE; e < N; e += 32) {
 *			bool taken = false;
 *			for (int p = 0; p < j; p++)
 *				taken = taken || IDX[p] == e;
 *			if (!taken && (best < 0 || G[e] > bv)) {
 *				best = e;
 *				bv = G[e];
 *			}
 *		}
 *		astra_..._wargmax(bv, best);
 *		... IDX[j] = best; ...
 *	}
 *
 * Each of the k rounds re-reads the row (G) and, for each element, the
 * indices chosen so far (IDX, which the warp has just written).  When the
 * row fits (N <= 32 * Q, Q from the pragma's shapes, at most 16), each
 * lane loads its elements e = LANE + 32 q once before the rounds, and a
 * lane's bit q records that its element q was chosen: after the warp's
 * argmax, the lane that owns `best` sets its bit.  A round then visits the
 * lane's elements in the same ascending order, with the same comparison,
 * so every lane finds the same candidate as before and the warp the same
 * (value, index): the results are bit for bit the original's.  Rows longer
 * than 32 * Q take the loop as written.
 *
 * Preconditions, all checked: IDX[j] = best is the only store through IDX
 * in the rounds, done every round (at most under a lane == 0 test) after
 * the argmax and with best unchanged since; IDX is read only by the
 * membership loop; G points to const data and the pragma says noalias
 * (nothing the kernel stores can change the row); K, N, G and LANE are set
 * before the rounds; nothing leaves a round early.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"
#include "rules/helpers.h"
#include "rules/rule.h"

#define MAX_Q 16

struct sel {
	struct astra_rk *rk;
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_syn_edits edits;
	const char *why;        /* why the last candidate loop did not qualify */
	int done;
};

/* The names and pieces of one matched selection. */
struct match {
	struct astra_stmt *outer, *inner, *argmax;
	char *j, *e, *p, *taken, *best, *bv, *idx, *g;
	char *lane, *n;         /* texts of LANE and N */
	struct astra_expr *val; /* G[e] */
	const char *type;       /* the row's element type */
	long q;
};

static void match_release(struct match *m)
{
	free(m->j);
	free(m->e);
	free(m->p);
	free(m->taken);
	free(m->best);
	free(m->bv);
	free(m->idx);
	free(m->g);
	free(m->lane);
	free(m->n);
}

static struct astra_expr *unparen(struct astra_expr *e)
{
	while (e && e->kind == EX_PAREN)
		e = e->a;
	return e;
}

static int is_op(const struct astra_syn *syn, const struct astra_expr *e, enum astra_expr_kind kind, const char *op)
{
	return e && e->kind == kind && astra_syn_is(syn, e->op, op);
}

/* `int NAME = INIT`: the name (malloc'd), with the initializer's tokens; NULL otherwise. */
static char *for_init(struct sel *s, struct astra_stmt *loop, size_t *i0, size_t *i1)
{
	struct astra_decl *d = NULL;
	char *name = NULL;
	if (astra_syn_decls(s->syn, loop->a0, loop->a1, &d) == 1 && d[0].init1 > d[0].init0 && !d[0].is_array &&
	    d[0].ty1 == d[0].ty0 + 1 && astra_syn_is(s->syn, d[0].ty0, "int")) {
		name = astra_syn_tokstr(s->syn, d[0].name);
		*i0 = d[0].init0;
		*i1 = d[0].init1;
	}
	free(d);
	return name;
}

/* `v++` or `++v` in tokens [t0, t1). */
static int is_incr(struct sel *s, size_t t0, size_t t1, const char *v)
{
	return t1 == t0 + 2 && ((astra_syn_is(s->syn, t0, v) && astra_syn_is(s->syn, t0 + 1, "++")) ||
				(astra_syn_is(s->syn, t0, "++") && astra_syn_is(s->syn, t0 + 1, v)));
}

/* `for (int v = 0; v < BOUND; v++)`: v (malloc'd) and BOUND's tokens; NULL otherwise. */
static char *counted_loop(struct sel *s, struct astra_stmt *loop, size_t *b0, size_t *b1)
{
	size_t i0, i1;
	char *v;
	if (loop->kind != STMT_FOR)
		return NULL;
	v = for_init(s, loop, &i0, &i1);
	if (!v)
		return NULL;
	if (i1 != i0 + 1 || !astra_syn_is(s->syn, i0, "0") || loop->b1 < loop->b0 + 3 ||
	    !astra_syn_is(s->syn, loop->b0, v) || !astra_syn_is(s->syn, loop->b0 + 1, "<") ||
	    !is_incr(s, loop->c0, loop->c1, v) ||
	    astra_facts_assigned_in(&s->f, v, strlen(v), loop->kids[0]->t0, loop->kids[0]->t1)) {
		free(v);
		return NULL;
	}
	*b0 = loop->b0 + 2;
	*b1 = loop->b1;
	return v;
}

/*
 * Every local that tokens [t0, t1) use is declared before token `before`
 * and never changed: the text means the same before the rounds as in them.
 */
static int fixed_before(struct sel *s, size_t t0, size_t t1, size_t before)
{
	size_t t;
	for (t = t0; t < t1; t++) {
		const struct astra_local *l = astra_facts_local_tok(&s->f, t);
		if (!l)
			continue;
		if (l->nr_decls != 1 || l->assigned || l->d.name >= before)
			return 0;
	}
	return 1;
}

/* The single statement of a body (itself, or the only statement of a block). */
static struct astra_stmt *only_stmt(struct astra_stmt *b)
{
	while (b && b->kind == STMT_BLOCK && b->nr_kids == 1)
		b = b->kids[0];
	return b;
}

/* `taken = taken || IDX[p] == e` (or `taken |= ...`, operands either way round). */
static int membership(struct sel *s, struct astra_stmt *st, struct match *m)
{
	struct astra_expr *a, *x, *y, *ix;
	if (!st || st->kind != STMT_EXPR)
		return 0;
	a = astra_syn_expr(s->syn, st->a0, st->a1);
	if (!a || a->kind != EX_ASSIGN || !astra_syn_is_name(s->syn, a->a, m->taken))
		return 0;
	if (astra_syn_is(s->syn, a->op, "=")) {
		x = unparen(a->b);
		if (!is_op(s->syn, x, EX_BINARY, "||") || !astra_syn_is_name(s->syn, unparen(x->a), m->taken))
			return 0;
		x = unparen(x->b);
	} else if (astra_syn_is(s->syn, a->op, "|=")) {
		x = unparen(a->b);
	} else {
		return 0;
	}
	if (!is_op(s->syn, x, EX_BINARY, "=="))
		return 0;
	ix = unparen(x->a);
	y = unparen(x->b);
	if (astra_syn_is_name(s->syn, ix, m->e)) {
		ix = y;
		y = unparen(x->a);
	}
	if (!ix || ix->kind != EX_INDEX || !astra_syn_is_name(s->syn, unparen(ix->b), m->p) || !ix->a ||
	    ix->a->kind != EX_IDENT || ix->a->t1 != ix->a->t0 + 1 || !astra_syn_is_name(s->syn, y, m->e))
		return 0;
	m->idx = astra_syn_tokstr(s->syn, ix->a->t0);
	return 1;
}

/* `if (!taken && (best < 0 || G[e] > bv)) { best = e; bv = G[e]; }`: fills best, bv, g, val. */
static int argmax_if(struct sel *s, struct astra_stmt *iff, struct match *m)
{
	struct astra_expr *c, *x, *a1, *a2, *val;
	struct astra_stmt *then;
	char *vt, *v2;
	int ok;
	if (iff->kind != STMT_IF || iff->nr_kids != 1)
		return 0;
	then = iff->kids[0];
	if (then->kind != STMT_BLOCK || then->nr_kids != 2 || then->kids[0]->kind != STMT_EXPR ||
	    then->kids[1]->kind != STMT_EXPR)
		return 0;
	a1 = astra_syn_expr(s->syn, then->kids[0]->a0, then->kids[0]->a1);
	a2 = astra_syn_expr(s->syn, then->kids[1]->a0, then->kids[1]->a1);
	if (!is_op(s->syn, a1, EX_ASSIGN, "=") || !is_op(s->syn, a2, EX_ASSIGN, "=") || a1->a->kind != EX_IDENT ||
	    a1->a->t1 != a1->a->t0 + 1 || a2->a->kind != EX_IDENT || a2->a->t1 != a2->a->t0 + 1 ||
	    !astra_syn_is_name(s->syn, a1->b, m->e))
		return 0;
	m->best = astra_syn_tokstr(s->syn, a1->a->t0);
	m->bv = astra_syn_tokstr(s->syn, a2->a->t0);
	c = unparen(astra_syn_expr(s->syn, iff->a0, iff->a1));
	if (!is_op(s->syn, c, EX_BINARY, "&&"))
		return 0;
	x = unparen(c->a);
	if (!is_op(s->syn, x, EX_UNARY, "!") || !astra_syn_is_name(s->syn, x->a, m->taken))
		return 0;
	val = unparen(astra_syn_argmax_value(s->syn, c->b, m->best, m->bv));
	if (!val || val->kind != EX_INDEX || !val->a || val->a->kind != EX_IDENT || val->a->t1 != val->a->t0 + 1 ||
	    !astra_syn_is_name(s->syn, val->b, m->e))
		return 0;
	m->g = astra_syn_tokstr(s->syn, val->a->t0);
	m->val = val;
	vt = astra_syn_text(s->syn, val->t0, val->t1);
	v2 = astra_syn_text(s->syn, unparen(a2->b)->t0, unparen(a2->b)->t1);
	ok = !strcmp(vt, v2);
	free(vt);
	free(v2);
	return ok;
}

/* Is e `LANE == 0` (either way round)? */
static int lane0_test(struct sel *s, struct astra_stmt *iff)
{
	struct astra_expr *c = unparen(astra_syn_expr(s->syn, iff->a0, iff->a1)), *x, *y;
	if (!is_op(s->syn, c, EX_BINARY, "=="))
		return 0;
	x = unparen(c->a);
	y = unparen(c->b);
	if (x && x->kind == EX_LIT) {
		struct astra_expr *t = x;
		x = y;
		y = t;
	}
	return y && y->kind == EX_LIT && astra_syn_is(s->syn, y->t0, "0") && y->t1 == y->t0 + 1 &&
	       astra_facts_tix(&s->f, x) == TIX_LANE;
}

static int has_exit(struct astra_stmt *st, void *data)
{
	(void)data;
	return st->kind == STMT_BREAK || st->kind == STMT_CONTINUE || st->kind == STMT_RETURN ||
	       st->kind == STMT_GOTO || st->kind == STMT_OTHER;
}

/* The statement holding token t, the innermost below `in`. */
struct find_tok {
	size_t t;
	struct astra_stmt *found;
};

static int find_tok(struct astra_stmt *st, void *data)
{
	struct find_tok *ft = data;
	if (st->kind != STMT_BLOCK && ft->t >= st->t0 && ft->t < st->t1)
		ft->found = st;
	return 0;
}

/*
 * The stores and reads through IDX (or another pointer into its parameter)
 * in the rounds: the one store must be `IDX[j] = best;`, every round, after
 * the argmax; every read must be the membership loop's.
 */
static int idx_uses(struct sel *s, struct match *m, struct astra_stmt *member)
{
	const struct astra_syn *syn = s->syn;
	const struct astra_param *pi;
	struct astra_stmt *body = m->outer->kids[0], *st;
	char *off = NULL;
	size_t t, store = (size_t)-1;

	pi = astra_facts_pointer(&s->f, m->idx, strlen(m->idx), &off);
	free(off);
	if (!pi) {
		s->why = "the chosen indices are not stored through a kernel parameter";
		return 0;
	}
	for (t = body->t0; t < body->t1; t++) {
		const struct astra_param *q;
		if (syn->toks[t].kind != SYN_IDENT ||
		    (t > 0 && (astra_syn_is(syn, t - 1, ".") || astra_syn_is(syn, t - 1, "->"))))
			continue;
		off = NULL;
		q = astra_facts_pointer(&s->f, syn->text + syn->toks[t].off, syn->toks[t].len, &off);
		free(off);
		if (q != pi)
			continue;
		if (!astra_syn_is(syn, t, m->idx)) {
			s->why = "another pointer into the indices' buffer is used in the rounds";
			return 0;
		}
		if (t >= member->t0 && t < member->t1)
			continue; /* the membership loop's read */
		if (store != (size_t)-1 || t + 6 >= body->t1 || !astra_syn_is(syn, t + 1, "[") ||
		    !astra_syn_is(syn, t + 2, m->j) || !astra_syn_is(syn, t + 3, "]") ||
		    !astra_syn_is(syn, t + 4, "=") || !astra_syn_is(syn, t + 5, m->best) ||
		    !astra_syn_is(syn, t + 6, ";") || (t > 0 && (astra_syn_is(syn, t - 1, "++") ||
								 astra_syn_is(syn, t - 1, "--") ||
								 astra_syn_is(syn, t - 1, "&")))) {
			s->why = "the indices' buffer is used in the rounds other than by `IDX[j] = best;` and "
				 "the membership test";
			return 0;
		}
		store = t;
	}
	if (store == (size_t)-1 || store < m->argmax->t1) {
		s->why = "no `IDX[j] = best;` after the warp's argmax";
		return 0;
	}
	if (astra_facts_assigned_in(&s->f, m->best, strlen(m->best), m->argmax->t1, body->t1)) {
		s->why = "best changes after the warp's argmax";
		return 0;
	}
	/* done every round: only blocks and `if (lane == 0)` between it and the round */
	{
		struct find_tok ft = { store, NULL };
		astra_syn_walk(body, find_tok, &ft);
		for (st = ft.found ? ft.found->parent : NULL; st && st != body; st = st->parent)
			if (!(st->kind == STMT_BLOCK || (st->kind == STMT_IF && st->nr_kids == 1 && lane0_test(s, st)))) {
				s->why = "`IDX[j] = best;` is not done in every round";
				return 0;
			}
		if (!ft.found || !st) {
			s->why = "`IDX[j] = best;` is not a statement of the round";
			return 0;
		}
	}
	return 1;
}

/* Does the selection loop `inner` (a kid of the round `outer`) qualify? Fills m. */
static int match_inner(struct sel *s, struct match *m)
{
	const struct astra_syn *syn = s->syn;
	struct astra_stmt *body = m->outer->kids[0], *ib, *member, *st;
	size_t i0, i1, b0, b1, i;
	char *np;
	const struct astra_param *gp;
	const struct astra_local *gl;
	char *off = NULL;
	struct astra_expr *lane;
	long long maxn;
	enum astra_type ty;

	m->e = for_init(s, m->inner, &i0, &i1);
	if (!m->e)
		return 0;
	lane = astra_syn_expr(s->syn, i0, i1);
	if (!lane || astra_facts_tix(&s->f, lane) != TIX_LANE || !fixed_before(s, i0, i1, m->outer->t0))
		return 0;
	m->lane = astra_syn_text(syn, i0, i1);
	/* e < N; e += 32 */
	if (m->inner->b1 < m->inner->b0 + 3 || !astra_syn_is(syn, m->inner->b0, m->e) ||
	    !astra_syn_is(syn, m->inner->b0 + 1, "<") || m->inner->c1 != m->inner->c0 + 3 ||
	    !astra_syn_is(syn, m->inner->c0, m->e) || !astra_syn_is(syn, m->inner->c0 + 1, "+=") ||
	    !(astra_syn_is(syn, m->inner->c0 + 2, "32") || astra_syn_is(syn, m->inner->c0 + 2, "warpSize")))
		return 0;
	b0 = m->inner->b0 + 2;
	b1 = m->inner->b1;
	if (!fixed_before(s, b0, b1, m->outer->t0) || astra_facts_mentions_grid(&s->f, b0, b1, 0)) {
		s->why = "the row length is not known before the rounds";
		return 0;
	}
	m->n = astra_syn_text(syn, b0, b1);
	ib = m->inner->kids[0];
	if (ib->kind != STMT_BLOCK || ib->nr_kids != 3 || ib->kids[0]->kind != STMT_DECL ||
	    ib->kids[1]->kind != STMT_FOR || ib->kids[2]->kind != STMT_IF) {
		s->why = "the selection loop's body is not `bool taken = false;`, the membership loop and the "
			 "argmax test";
		return 0;
	}
	{
		struct astra_decl *d = NULL;
		int ok = astra_syn_decls(syn, ib->kids[0]->a0, ib->kids[0]->a1, &d) == 1 && d[0].ty1 == d[0].ty0 + 1 &&
			 astra_syn_is(syn, d[0].ty0, "bool") && d[0].init1 == d[0].init0 + 1 &&
			 astra_syn_is(syn, d[0].init0, "false") && !d[0].is_array;
		if (ok)
			m->taken = astra_syn_tokstr(syn, d[0].name);
		free(d);
		if (!ok)
			return 0;
	}
	member = ib->kids[1];
	m->p = counted_loop(s, member, &b0, &b1);
	if (!m->p || b1 != b0 + 1 || !astra_syn_is(syn, b0, m->j) || !membership(s, only_stmt(member->kids[0]), m)) {
		s->why = "no membership test `for (p = 0; p < j; p++) taken = taken || IDX[p] == e;`";
		return 0;
	}
	if (!argmax_if(s, ib->kids[2], m)) {
		s->why = "no argmax test `if (!taken && (best < 0 || G[e] > bv)) { best = e; bv = G[e]; }`";
		return 0;
	}
	/* the warp's argmax of (bv, best) after the loop, a statement of the round */
	for (i = 0; i < body->nr_kids && body->kids[i] != m->inner; i++)
		;
	for (i++; i < body->nr_kids && !m->argmax; i++) {
		struct astra_expr *c;
		st = body->kids[i];
		if (st->kind != STMT_EXPR)
			continue;
		c = astra_syn_expr(s->syn, st->a0, st->a1);
		if (c && c->kind == EX_CALL && c->nr_args == 2 && astra_syn_is_name(syn, c->a, ASTRA_HELPER("wargmax")) &&
		    astra_syn_is_name(syn, unparen(c->args[0]), m->bv) && astra_syn_is_name(syn, unparen(c->args[1]), m->best))
			m->argmax = st;
	}
	if (!m->argmax) {
		s->why = "no warp argmax after the selection loop (apply warp-per-row first)";
		return 0;
	}
	/* the row: const data the kernel cannot store to (noalias), fixed before the rounds */
	gp = astra_facts_pointer(&s->f, m->g, strlen(m->g), &off);
	free(off);
	if (!gp || !gp->is_const || !(s->rk->k->pragma.flags & ASTRA_PRAGMA_NOALIAS)) {
		s->why = "the row is not const data of a parameter under `noalias`";
		return 0;
	}
	gl = astra_facts_local(&s->f, m->g, strlen(m->g));
	if (gl && (gl->nr_decls != 1 || gl->assigned || gl->d.name >= m->outer->t0)) {
		s->why = "the row's pointer is not set before the rounds";
		return 0;
	}
	ty = astra_facts_type(&s->f, m->val);
	m->type = ty == TY_FLOAT ? "float" : ty == TY_DOUBLE ? "double" : ty == TY_INT ? "int" : NULL;
	if (!m->type) {
		s->why = "the row's elements are not float, double or int";
		return 0;
	}
	/* how many elements a lane holds: the longest row of the shapes */
	np = astra_facts_to_params(&s->f, m->n);
	maxn = np ? astra_rk_max_over_shapes(s->rk, np) : -1;
	free(np);
	if (maxn < 1) {
		s->why = "the row length cannot be evaluated at the pragma's shapes";
		return 0;
	}
	m->q = (long)((maxn + 31) / 32);
	if (m->q > MAX_Q) {
		s->why = "rows longer than 512 elements at the pragma's shapes";
		return 0;
	}
	if (astra_syn_walk(body, has_exit, NULL)) {
		s->why = "a round can end early";
		return 0;
	}
	return idx_uses(s, m, member);
}

/* text with ind after each newline, except before a preprocessor line (malloc'd) */
static char *indent_lines(const char *text, const char *ind)
{
	struct astra_buf o = ASTRA_BUF_INIT;
	for (; *text; text++) {
		astra_buf_addch(&o, *text);
		if (*text == '\n' && text[1] && text[1] != '#')
			astra_buf_adds(&o, ind);
	}
	return astra_buf_detach(&o, NULL);
}

static void rewrite(struct sel *s, struct match *m)
{
	const struct astra_syn *syn = s->syn;
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t off, end;
	char *ind, *text, *orig;

	/* before the rounds: the lane's elements and the mask */
	off = astra_syn_off(syn, m->outer->t0);
	ind = astra_rk_line_indent(s->rk, off);
	astra_buf_addf(&b,
		       "const bool astra_sel_fit = (%s) <= 32 * %ld;\n"
		       "%s astra_sel_v[%ld] = {};\n"
		       "unsigned astra_sel_taken = 0u;\n"
		       "if (astra_sel_fit) {\n"
		       "#pragma unroll\n"
		       "\tfor (int astra_sel_q = 0; astra_sel_q < %ld; ++astra_sel_q) {\n"
		       "\t\tconst int astra_sel_e = (%s) + 32 * astra_sel_q;\n"
		       "\t\tif (astra_sel_e < (%s))\n"
		       "\t\t\tastra_sel_v[astra_sel_q] = %s[astra_sel_e];\n"
		       "\t}\n"
		       "}",
		       m->n, m->q, m->type, m->q, m->q, m->lane, m->n, m->g);
	text = indent_lines(b.buf, ind);
	astra_rk_edit_line_before(s->rk, off, text, &s->edits);
	free(text);
	free(ind);

	/* the selection: from registers while the row fits, else the loop as written */
	off = astra_syn_off(syn, m->inner->t0);
	end = astra_syn_end(syn, m->inner->t1 - 1);
	ind = astra_rk_line_indent(s->rk, off);
	text = xstrndup(syn->text + off, end - off);
	orig = indent_lines(text, "\t");
	free(text);
	astra_buf_reset(&b);
	astra_buf_addf(&b,
		       "if (astra_sel_fit) {\n"
		       "#pragma unroll\n"
		       "\tfor (int astra_sel_q = 0; astra_sel_q < %ld; ++astra_sel_q) {\n"
		       "\t\tconst int %s = (%s) + 32 * astra_sel_q;\n"
		       "\t\tif (%s < (%s) && !((astra_sel_taken >> astra_sel_q) & 1u) &&\n"
		       "\t\t    (%s < 0 || astra_sel_v[astra_sel_q] > %s)) {\n"
		       "\t\t\t%s = %s;\n"
		       "\t\t\t%s = astra_sel_v[astra_sel_q];\n"
		       "\t\t}\n"
		       "\t}\n"
		       "} else {\n",
		       m->q, m->e, m->lane, m->e, m->n, m->best, m->bv, m->best, m->e, m->bv);
	text = indent_lines(b.buf, ind);
	/* orig's lines after the first keep their own indentation, one tab deeper */
	astra_syn_edit_owned(&s->edits, off, end, xasprintf("%s%s\t%s\n%s}", text, ind, orig, ind));
	free(text);
	free(orig);
	free(ind);

	/* the lane that owns the chosen element marks it */
	end = astra_syn_end(syn, m->argmax->t1 - 1);
	ind = astra_rk_line_indent(s->rk, astra_syn_off(syn, m->argmax->t0));
	astra_syn_edit_owned(&s->edits, end, end,
			     xasprintf("\n%sif (astra_sel_fit && %s >= 0 && (%s & 31) == (%s))\n"
				       "%s\tastra_sel_taken |= 1u << (%s >> 5);",
				       ind, m->best, m->best, m->lane, ind, m->best));
	free(ind);
	astra_buf_release(&b);
}

static int visit(struct astra_stmt *st, void *data)
{
	struct sel *s = data;
	struct astra_stmt *body;
	size_t b0, b1, i;
	char *j;

	if (s->done || st->kind != STMT_FOR)
		return s->done;
	j = counted_loop(s, st, &b0, &b1);
	body = st->kids[0];
	if (j && body->kind == STMT_BLOCK && fixed_before(s, b0, b1, st->t0) &&
	    !astra_facts_mentions_grid(&s->f, b0, b1, 0)) {
		for (i = 0; i < body->nr_kids && !s->done; i++) {
			struct match m;
			if (body->kids[i]->kind != STMT_FOR)
				continue;
			memset(&m, 0, sizeof(m));
			m.outer = st;
			m.inner = body->kids[i];
			m.j = xstrdup(j);
			if (match_inner(s, &m)) {
				rewrite(s, &m);
				s->done = 1;
			}
			match_release(&m);
		}
	}
	free(j);
	return s->done;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct sel s;
	(void)arg;
	memset(&s, 0, sizeof(s));
	if (strstr(rk->text, "astra_sel_")) {
		astra_buf_adds(why, "already applied");
		return 0;
	}
	if (astra_facts_build(&s.f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	s.rk = rk;
	s.syn = s.f.syn;
	s.why = "no loop of rounds `for (j = 0; j < K; j++)` holding a warp's selection loop "
		"`for (e = lane; e < N; e += 32)`";
	astra_syn_walk(rk->syn.body, visit, &s);
	astra_facts_release(&s.f);
	if (!s.done) {
		astra_syn_edits_release(&s.edits);
		astra_buf_adds(why, s.why);
		return 0;
	}
	if (astra_rk_edit(rk, &s.edits) < 0) {
		astra_syn_edits_release(&s.edits);
		astra_buf_adds(why, "internal: overlapping edits");
		return -1;
	}
	astra_syn_edits_release(&s.edits);
	return 1;
}

const struct astra_rule astra_rule_select_regs = {
	.name = "select-regs",
	.summary = "a warp's top-k selection reads its row from registers and marks chosen elements in a bit mask",
	.stage = 15,
	.apply = apply,
};
