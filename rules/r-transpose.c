/*
 * r-transpose.c - rule "transpose-tile": the one-element-per-thread
 * transpose becomes a 32x32 shared-memory tile transpose.
 *
 * The shape it reads (names free, casts allowed):
 *
 *   int i = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (i >= R * C) return;
 *   int r = i / C;
 *   int c = i % C;
 *   out[c * R + r] = in[i];            (or in[r * C + c]; the value may be cast)
 *
 * or, the textbook 2-D form (x the column, y the row; names free):
 *
 *   int x = blockIdx.x * blockDim.x + threadIdx.x;
 *   int y = blockIdx.y * blockDim.y + threadIdx.y;
 *   if (x < C && y < R)                (or: if (x >= C || y >= R) return;)
 *       out[x * R + y] = in[y * C + x];
 *
 * Every warp of the original reads one row segment (coalesced) and writes
 * 32 addresses R elements apart (32 memory transactions per store).  The
 * rewrite has each block (32 x 8 threads) read a 32x32 tile with coalesced
 * loads into shared memory (one padding column against bank conflicts),
 * and write it transposed with coalesced stores.  The two loops over the
 * tile have a fixed trip count (4) and are unrolled, so each thread has
 * its four loads in flight at once (a loop starting at threadIdx.y is not
 * unrolled, and each load would wait for the previous one's shared-memory
 * store: four memory latencies in a row).  The launch becomes 2-D:
 * grid dim3((C + 31) / 32, (R + 31) / 32), block dim3(32, 8).
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"
#include "rules/rule.h"

#define NONE ((size_t)-1)

/* Tokens of [t0, t1) without parentheses and casts to integer types, joined: for comparing shapes. */
static char *norm(const struct astra_syn *syn, size_t t0, size_t t1)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t t;
	for (t = t0; t < t1; t++) {
		if (astra_syn_is(syn, t, "(") && t + 2 < t1 && astra_syn_is_type_name(syn, syn->text + syn->toks[t + 1].off,
										    syn->toks[t + 1].len)) {
			size_t m = astra_syn_match(syn, t);
			if (m != NONE && m < t1) {
				t = m;
				continue;
			}
		}
		if (astra_syn_is(syn, t, "(") || astra_syn_is(syn, t, ")"))
			continue;
		astra_buf_add(&b, syn->text + syn->toks[t].off, syn->toks[t].len);
		astra_buf_addch(&b, ' ');
	}
	return astra_buf_detach(&b, NULL);
}

static int same(const struct astra_syn *syn, size_t a0, size_t a1, const char *text)
{
	char *n = norm(syn, a0, a1);
	int r = !strcmp(n, text);
	free(n);
	return r;
}

/* A local's declared type without `const` (the tile code declares its own consts). */
static char *decl_type(const struct astra_syn *syn, const struct astra_local *l)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t t;
	for (t = l->d.ty0; t < l->d.ty1; t++) {
		if (astra_syn_is(syn, t, "const"))
			continue;
		if (b.len)
			astra_buf_addch(&b, ' ');
		astra_buf_add(&b, syn->text + syn->toks[t].off, syn->toks[t].len);
	}
	return astra_buf_detach(&b, NULL);
}

/* What both shapes of the transpose found: the tile rewrite needs nothing else. */
struct tmatch {
	const struct astra_param *pin;
	char *Rn, *Cn;                          /* R and C as written */
	const struct astra_local *lr, *lc, *v;  /* the row and column locals; v the 1-D index or NULL */
	struct astra_expr *src, *lhs, *rhs;     /* the load in[...], the store's out[...] and its value */
};

/* The tile transpose in place of the body; returns 1, 0 (declined, why set) or -1. */
static int emit(struct astra_rk *rk, struct astra_facts *f, const struct tmatch *M, struct astra_buf *why)
{
	struct astra_syn *syn = &rk->syn;
	struct astra_stmt *body = syn->body;
	const struct astra_param *pin = M->pin;
	const struct astra_local *lr = M->lr, *lc = M->lc, *v = M->v;
	struct astra_expr *src = M->src, *lhs = M->lhs, *rhs = M->rhs;
	const char *Rn = M->Rn, *Cn = M->Cn;
	int r = 0;
	{
		char *Rp = astra_facts_to_params(f, Rn), *Cp = astra_facts_to_params(f, Cn);
		struct astra_buf b = ASTRA_BUF_INIT;
		struct astra_syn_edits ed = { NULL, 0, 0 };
		char *elem = xstrdup(pin->elem_type), *vt = v ? astra_syn_text(syn, v->d.ty0, v->d.ty1) : NULL;
		char *vdecl = v ? xasprintf("\t\t\tconst %s %s = %s * (%s) + %s;\n", vt, v->name, lr->name, Cn, lc->name) :
			      xstrdup("");
		char *vuse = v ? xasprintf("\t\t\t(void)%s;\n", v->name) : xstrdup("");
		char *rt = decl_type(syn, lr), *ct = decl_type(syn, lc);
		char *load = astra_syn_text(syn, src->t0, src->t1), *lhs_t = astra_syn_text(syn, lhs->t0, lhs->t1);
		char *val;
		if (!Rp || !Cp || !astra_rk_params_only(rk, Rp) || !astra_rk_params_only(rk, Cp)) {
			astra_buf_adds(why, "R or C is not an expression of the kernel's parameters");
			free(Rp);
			free(Cp);
			free(elem);
			free(vt);
			free(rt);
			free(ct);
			free(load);
			free(lhs_t);
			free(vdecl);
			free(vuse);
			return 0;
		}
		{
			/* the stored value with the source element read from the tile */
			struct astra_syn_edits ve = { NULL, 0, 0 };
			struct astra_buf vb = ASTRA_BUF_INIT;
			astra_syn_edit(&ve, astra_syn_off(syn, src->t0), astra_syn_end(syn, src->t1 - 1),
					"astra_tile[threadIdx.x][astra_j]");
			astra_syn_apply(rk->text, astra_syn_off(syn, rhs->t0), astra_syn_end(syn, rhs->t1 - 1), &ve, &vb);
			astra_syn_edits_release(&ve);
			val = astra_buf_detach(&vb, NULL);
		}
		astra_buf_addf(&b,
			       "{\n"
			       "\t/* astra-cc rules: transpose through a 32x32 tile in shared memory */\n"
			       "\t__shared__ %s astra_tile[32][33];\n"
			       "\t#pragma unroll\n"
			       "\tfor (int astra_k = 0; astra_k < 32; astra_k += 8) {\n"
			       "\t\tconst int astra_j = astra_k + (int)threadIdx.y;\n"
			       "\t\tconst %s %s = blockIdx.y * 32 + astra_j;\n"
			       "\t\tconst %s %s = blockIdx.x * 32 + threadIdx.x;\n"
			       "\t\tif (%s < (%s) && %s < (%s)) {\n"
			       "%s"
			       "\t\t\tastra_tile[astra_j][threadIdx.x] = %s;\n"
			       "%s"
			       "\t\t}\n"
			       "\t}\n"
			       "\t__syncthreads();\n"
			       "\t#pragma unroll\n"
			       "\tfor (int astra_k = 0; astra_k < 32; astra_k += 8) {\n"
			       "\t\tconst int astra_j = astra_k + (int)threadIdx.y;\n"
			       "\t\tconst %s %s = blockIdx.y * 32 + threadIdx.x;\n"
			       "\t\tconst %s %s = blockIdx.x * 32 + astra_j;\n"
			       "\t\tif (%s < (%s) && %s < (%s))\n"
			       "\t\t\t%s = %s;\n"
			       "\t}\n"
			       "}",
			       elem, rt, lr->name, ct, lc->name, lr->name, Rn, lc->name, Cn, vdecl, load, vuse, rt, lr->name, ct, lc->name, lr->name, Rn, lc->name, Cn, lhs_t, val);
		astra_syn_edit_owned(&ed, astra_syn_off(syn, body->t0), astra_syn_end(syn, body->t1 - 1),
				      astra_buf_detach(&b, NULL));
		if (astra_rk_edit(rk, &ed) < 0) {
			r = -1;
		} else {
			char *grid = xasprintf("dim3(((%s) + 31) / 32, ((%s) + 31) / 32)", Cp, Rp);
			astra_rk_set_launch(rk, grid, "dim3(32, 8)", NULL);
			free(grid);
			r = 1;
		}
		astra_syn_edits_release(&ed);
		free(Rp);
		free(Cp);
		free(elem);
		free(vt);
		free(rt);
		free(ct);
		free(load);
		free(lhs_t);
		free(val);
		free(vdecl);
		free(vuse);
	}
	return r;
}

/* Is e `a < B` (or `B > a`) for the local named a?  B's expression, or NULL. */
static struct astra_expr *bound_of(const struct astra_syn *syn, struct astra_expr *e, const char *a, int ge)
{
	while (e->kind == EX_PAREN)
		e = e->a;
	if (e->kind != EX_BINARY)
		return NULL;
	if (astra_syn_is_name(syn, e->a, a) && astra_syn_is(syn, e->op, ge ? ">=" : "<"))
		return e->b;
	if (astra_syn_is_name(syn, e->b, a) && astra_syn_is(syn, e->op, ge ? "<=" : ">"))
		return e->a;
	return NULL;
}

/*
 * The 2-D shape: x (column) and y (row) from the 2-D grid, a bounds check
 * on both, and one store out[x * R + y] = f(in[y * C + x]).  Fills m and
 * returns 1, or 0 with why set.
 */
static int match_2d(struct astra_rk *rk, struct astra_facts *f, struct tmatch *m, struct astra_buf *why)
{
	struct astra_syn *syn = &rk->syn;
	struct astra_stmt *body = syn->body, *store = NULL, *g;
	const struct astra_local *lx = NULL, *ly = NULL;
	struct astra_expr *cond, *ex, *ey, *e, *x;
	size_t i, n;
	int early;
	char *want, *C = NULL, *R = NULL;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < body->nr_kids; i++) {
		struct astra_stmt *s = body->kids[i];
		struct astra_decl *d = NULL;
		if (s->kind != STMT_DECL || astra_syn_decls(syn, s->a0, s->a1, &d) != 1 || d[0].init1 <= d[0].init0) {
			free(d);
			break;
		}
		e = astra_syn_expr(syn, d[0].init0, d[0].init1);
		if (astra_facts_tix(f, e) == TIX_GTID)
			lx = astra_facts_local_tok(f, d[0].name);
		else if (astra_facts_tix_y(f, e) == TIX_GTID)
			ly = astra_facts_local_tok(f, d[0].name);
		else {
			free(d);
			break;
		}
		free(d);
	}
	n = i;
	if (!lx || !ly || lx->assigned || ly->assigned || lx->nr_decls != 1 || ly->nr_decls != 1) {
		astra_buf_adds(why, "no `x = blockIdx.x * blockDim.x + threadIdx.x; y = blockIdx.y * blockDim.y + "
				    "threadIdx.y;` (a 2-D transpose) or `i = blockIdx.x * blockDim.x + threadIdx.x; "
				    "if (i >= n) return;` at the top");
		return 0;
	}
	/* if (x < C && y < R) STORE;   or   if (x >= C || y >= R) return; STORE; */
	if (n + 1 == body->nr_kids && body->kids[n]->kind == STMT_IF && body->kids[n]->nr_kids == 1) {
		g = body->kids[n];
		store = g->kids[0];
		if (store->kind == STMT_BLOCK && store->nr_kids == 1)
			store = store->kids[0];
		early = 0;
	} else if (n + 2 == body->nr_kids && body->kids[n]->kind == STMT_IF && body->kids[n]->nr_kids == 1 &&
		   (body->kids[n]->kids[0]->kind == STMT_RETURN ||
		    (body->kids[n]->kids[0]->kind == STMT_BLOCK && body->kids[n]->kids[0]->nr_kids == 1 &&
		     body->kids[n]->kids[0]->kids[0]->kind == STMT_RETURN))) {
		g = body->kids[n];
		store = body->kids[n + 1];
		early = 1;
	} else {
		astra_buf_adds(why, "the 2-D index is not followed by one bounds check and one store");
		return 0;
	}
	cond = astra_syn_expr(syn, g->a0, g->a1);
	while (cond && cond->kind == EX_PAREN)
		cond = cond->a;
	if (!cond || cond->kind != EX_BINARY || !astra_syn_is(syn, cond->op, early ? "||" : "&&") ||
	    !(((ex = bound_of(syn, cond->a, lx->name, early)) && (ey = bound_of(syn, cond->b, ly->name, early))) ||
	      ((ey = bound_of(syn, cond->a, ly->name, early)) && (ex = bound_of(syn, cond->b, lx->name, early))))) {
		astra_buf_addf(why, "the bounds check is not `%s < C && %s < R`", lx->name, ly->name);
		return 0;
	}
	e = store->kind == STMT_EXPR ? astra_syn_expr(syn, store->a0, store->a1) : NULL;
	if (!e || e->kind != EX_ASSIGN || !astra_syn_is(syn, e->op, "=") || e->a->kind != EX_INDEX ||
	    e->a->a->kind != EX_IDENT) {
		astra_buf_adds(why, "the store is not `out[...] = ...`");
		return 0;
	}
	/* the value: one element of a buffer, maybe cast or converted */
	x = e->b;
	while (x->kind == EX_PAREN || x->kind == EX_CAST)
		x = x->a;
	if (x->kind == EX_CALL && x->nr_args == 1)
		x = x->args[0];
	while (x->kind == EX_PAREN || x->kind == EX_CAST)
		x = x->a;
	if (x->kind != EX_INDEX || x->a->kind != EX_IDENT) {
		astra_buf_adds(why, "the stored value is not one element read from a buffer");
		return 0;
	}
	{
		char *o1 = NULL, *o2 = NULL;
		const struct astra_param *pout = astra_facts_pointer(f, syn->text + syn->toks[e->a->a->t0].off,
								     syn->toks[e->a->a->t0].len, &o1);
		m->pin = astra_facts_pointer(f, syn->text + syn->toks[x->a->t0].off, syn->toks[x->a->t0].len, &o2);
		if (!pout || !m->pin || *o1 || *o2 || pout == m->pin) {
			free(o1);
			free(o2);
			astra_buf_adds(why, "the store and the load are not two different pointer parameters");
			return 0;
		}
		free(o1);
		free(o2);
	}
	C = norm(syn, ex->t0, ex->t1);
	R = norm(syn, ey->t0, ey->t1);
	/* in[y * C + x] and out[x * R + y] */
	want = xasprintf("%s * %s+ %s ", ly->name, C, lx->name);
	if (!same(syn, x->b->t0, x->b->t1, want)) {
		free(want);
		want = xasprintf("%s + %s * %s", lx->name, ly->name, C);
		if (!same(syn, x->b->t0, x->b->t1, want)) {
			astra_buf_addf(why, "the load is not in[%s * C + %s]", ly->name, lx->name);
			free(want);
			free(C);
			free(R);
			return 0;
		}
	}
	free(want);
	want = xasprintf("%s * %s+ %s ", lx->name, R, ly->name);
	if (!same(syn, e->a->b->t0, e->a->b->t1, want)) {
		free(want);
		want = xasprintf("%s + %s * %s", ly->name, lx->name, R);
		if (!same(syn, e->a->b->t0, e->a->b->t1, want)) {
			astra_buf_addf(why, "the store is not out[%s * R + %s]", lx->name, ly->name);
			free(want);
			free(C);
			free(R);
			return 0;
		}
	}
	free(want);
	free(C);
	free(R);
	for (i = body->t0; i < body->t1; i++)
		if ((i < lx->d.init0 || i >= lx->d.init1) && (i < ly->d.init0 || i >= ly->d.init1) &&
		    (astra_syn_is(syn, i, "threadIdx") || astra_syn_is(syn, i, "blockIdx") || astra_syn_is(syn, i, "__shared__"))) {
			astra_buf_adds(why, "the kernel uses the thread index elsewhere");
			return 0;
		}
	m->Rn = astra_syn_text(syn, ey->t0, ey->t1);
	m->Cn = astra_syn_text(syn, ex->t0, ex->t1);
	m->lr = ly;
	m->lc = lx;
	m->v = NULL;
	m->src = x;
	m->lhs = e->a;
	m->rhs = e->b;
	return 1;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_stmt *body, *store = NULL;
	const struct astra_local *v = NULL, *lr = NULL, *lc = NULL;
	struct astra_expr *e, *lhs, *rhs, *src = NULL;
	size_t i, g = NONE, t;
	char *R = NULL, *C = NULL, *Rn = NULL, *Cn = NULL, *rhs_text = NULL, *out = NULL;
	const struct astra_param *pin = NULL, *pout = NULL;
	int r = 0;
	(void)arg;

	if (astra_facts_build(&f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	syn = &rk->syn;
	body = syn->body;
	if (astra_facts_mentions_grid(&f, body->t0, body->t1, 1)) {
		struct tmatch m;
		if (match_2d(rk, &f, &m, why))
			r = emit(rk, &f, &m, why);
		free(m.Rn);
		free(m.Cn);
		goto out;
	}
	/* int i = gtid; if (i >= N) return; */
	for (i = 0; i < body->nr_kids && !v; i++) {
		struct astra_stmt *s = body->kids[i];
		struct astra_decl *d = NULL;
		if (s->kind == STMT_DECL && astra_syn_decls(syn, s->a0, s->a1, &d) == 1 && d[0].init1 > d[0].init0 &&
		    astra_facts_tix(&f, astra_syn_expr(syn, d[0].init0, d[0].init1)) == TIX_GTID) {
			v = astra_facts_local_tok(&f, d[0].name);
			g = i + 1;
		}
		free(d);
	}
	if (!v || v->assigned || g >= body->nr_kids || body->kids[g]->kind != STMT_IF || body->kids[g]->nr_kids != 1 ||
	    !astra_syn_is(syn, body->kids[g]->a0, v->name) || !astra_syn_is(syn, body->kids[g]->a0 + 1, ">=")) {
		astra_buf_adds(why, "no `i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;` at the top");
		goto out;
	}
	/* the rest: declarations of r = i / C and c = i % C, and one store */
	for (i = g + 1; i < body->nr_kids; i++) {
		struct astra_stmt *s = body->kids[i];
		struct astra_decl *d = NULL;
		struct astra_expr *init;
		if (s->kind == STMT_EXPR && !store) {
			store = s;
			continue;
		}
		if (s->kind != STMT_DECL || astra_syn_decls(syn, s->a0, s->a1, &d) != 1 || d[0].init1 <= d[0].init0) {
			free(d);
			store = NULL;
			break;
		}
		init = astra_syn_expr(syn, d[0].init0, d[0].init1);
		if (init && init->kind == EX_BINARY && init->a->kind == EX_IDENT && astra_syn_is(syn, init->a->t0, v->name) &&
		    (astra_syn_is(syn, init->op, "/") || astra_syn_is(syn, init->op, "%"))) {
			char *cc = norm(syn, init->b->t0, init->b->t1);
			if (!C) {
				C = cc;
				Cn = astra_syn_text(syn, init->b->t0, init->b->t1);
			} else if (strcmp(C, cc)) {
				free(cc);
				free(d);
				store = NULL;
				break;
			} else {
				free(cc);
			}
			if (astra_syn_is(syn, init->op, "/"))
				lr = astra_facts_local_tok(&f, d[0].name);
			else
				lc = astra_facts_local_tok(&f, d[0].name);
		}
		free(d);
	}
	if (!store || !lr || !lc || lr->assigned || lc->assigned || !C) {
		astra_buf_adds(why, "not `r = i / C; c = i % C; out[c * R + r] = in[i];`");
		goto out;
	}
	e = astra_syn_expr(syn, store->a0, store->a1);
	if (!e || e->kind != EX_ASSIGN || !astra_syn_is(syn, e->op, "=") || e->a->kind != EX_INDEX ||
	    e->a->a->kind != EX_IDENT) {
		astra_buf_adds(why, "the store is not `out[...] = ...`");
		goto out;
	}
	lhs = e->a;
	rhs = e->b;
	{
		/* the source: the one element read in the value */
		struct astra_expr *x = rhs;
		while (x->kind == EX_PAREN || x->kind == EX_CAST)
			x = x->a;
		if (x->kind == EX_CALL && x->nr_args == 1)
			x = x->args[0];
		while (x->kind == EX_PAREN || x->kind == EX_CAST)
			x = x->a;
		if (x->kind == EX_INDEX && x->a->kind == EX_IDENT)
			src = x;
	}
	if (!src) {
		astra_buf_adds(why, "the stored value is not one element read from a buffer");
		goto out;
	}
	{
		char *o1 = NULL, *o2 = NULL;
		pout = astra_facts_pointer(&f, syn->text + syn->toks[lhs->a->t0].off, syn->toks[lhs->a->t0].len, &o1);
		pin = astra_facts_pointer(&f, syn->text + syn->toks[src->a->t0].off, syn->toks[src->a->t0].len, &o2);
		if (!pout || !pin || *o1 || *o2 || pout == pin) {
			free(o1);
			free(o2);
			astra_buf_adds(why, "the store and the load are not two different pointer parameters");
			goto out;
		}
		free(o1);
		free(o2);
	}
	/* in[i] or in[r * C + c] */
	{
		char *want = xasprintf("%s * %s+ %s ", lr->name, C, lc->name);
		char *want2 = xasprintf("%s ", v->name);
		int ok = same(syn, src->b->t0, src->b->t1, want) || same(syn, src->b->t0, src->b->t1, want2);
		free(want);
		free(want2);
		if (!ok) {
			astra_buf_adds(why, "the load is not in[i] or in[r * C + c]");
			goto out;
		}
	}
	/* out[c * R + r] */
	{
		struct astra_expr *ix = lhs->b, *m;
		while (ix->kind == EX_PAREN)
			ix = ix->a;
		if (ix->kind != EX_BINARY || !astra_syn_is(syn, ix->op, "+") || ix->b->kind != EX_IDENT ||
		    !astra_syn_is(syn, ix->b->t0, lr->name)) {
			astra_buf_adds(why, "the store is not out[c * R + r]");
			goto out;
		}
		m = ix->a;
		while (m->kind == EX_PAREN)
			m = m->a;
		if (m->kind != EX_BINARY || !astra_syn_is(syn, m->op, "*")) {
			astra_buf_adds(why, "the store is not out[c * R + r]");
			goto out;
		}
		{
			struct astra_expr *cc = m->a;
			while (cc->kind == EX_PAREN || cc->kind == EX_CAST)
				cc = cc->a;
			if (cc->kind != EX_IDENT || !astra_syn_is(syn, cc->t0, lc->name)) {
				astra_buf_adds(why, "the store is not out[c * R + r]");
				goto out;
			}
		}
		R = norm(syn, m->b->t0, m->b->t1);
		Rn = astra_syn_text(syn, m->b->t0, m->b->t1);
	}
	/* the guard's bound must be R * C */
	{
		char *cr = xasprintf("%s* %s", C, R), *rc2 = xasprintf("%s* %s", R, C);
		int ok = same(syn, body->kids[g]->a0 + 2, body->kids[g]->a1, rc2) ||
			 same(syn, body->kids[g]->a0 + 2, body->kids[g]->a1, cr);
		free(cr);
		free(rc2);
		if (!ok) {
			astra_buf_adds(why, "the bounds check is not i >= R * C");
			goto out;
		}
	}
	for (t = body->t0; t < body->t1; t++)
		if ((t < v->d.init0 || t >= v->d.init1) &&
		    (astra_syn_is(syn, t, "threadIdx") || astra_syn_is(syn, t, "blockIdx") || astra_syn_is(syn, t, "__shared__"))) {
			astra_buf_adds(why, "the kernel uses the thread index elsewhere");
			goto out;
		}
	{
		struct tmatch m;
		m.pin = pin;
		m.Rn = Rn;
		m.Cn = Cn;
		m.lr = lr;
		m.lc = lc;
		m.v = v;
		m.src = src;
		m.lhs = lhs;
		m.rhs = rhs;
		r = emit(rk, &f, &m, why);
	}
out:
	free(R);
	free(C);
	free(Rn);
	free(Cn);
	free(rhs_text);
	free(out);
	astra_facts_release(&f);
	return r;
}

const struct astra_rule astra_rule_transpose = {
	.name = "transpose-tile",
	.summary = "element-per-thread transpose -> 32x32 shared-memory tiles, coalesced loads and stores (2-D launch)",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "elems-per-thread,grid-stride",
	.apply = apply,
};
