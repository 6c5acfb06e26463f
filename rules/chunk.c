/*
 * chunk.c - per-thread chunks with vector loads and stores (see chunk.h).
 *
 * The analysis is deliberately narrow.  An index is classified as
 * INV (the same for every element of a chunk), UNIT (the loop index plus
 * an INV part) or VARY (anything else) by structural recursion with the
 * loop index as the only varying leaf; set-once locals are looked
 * through.  Only UNIT accesses through a pointer parameter (or a set-once
 * local pointer into one) are vectorized.  A pointer that is written must
 * be accessed only through vectorized accesses in the loop, so that no
 * scalar access can see a stale register copy.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "rules/chunk-int.h"

/* ------------------------------------------------------------- loops */

static void unit_release(struct unit *u)
{
	int i;
	for (i = 0; i < u->nr_groups; i++) {
		free(u->groups[i].base);
		free(u->groups[i].index);
		free(u->groups[i].key);
		free(u->groups[i].elem);
		free(u->groups[i].reg);
	}
	for (i = 0; i < u->nr_fake; i++) {
		free(u->fake[i].name);
		free(u->fake[i].elem_type);
		free(u->fake[i].type);
	}
	free(u->acc);
	free(u->var);
	free(u->var_type);
	free(u->start);
	free(u->limit);
	free(u->stride);
	free(u->prologue);
	free(u->stmts);
	free(u->hoist);
	astra_vec_clear(&u->hnames);
	astra_vec_clear(&u->divisors);
	memset(u, 0, sizeof(*u));
}

/* The declared type of a local, without const (the loop index is assigned). */
static char *var_type_text(struct ck *c, const struct astra_decl *d)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	for (i = d->ty0; i < d->ty1; i++) {
		if (astra_syn_is(c->syn, i, "const") || astra_syn_is(c->syn, i, "constexpr"))
			continue;
		if (b.len)
			astra_buf_addch(&b, ' ');
		astra_buf_add(&b, c->syn->text + c->syn->toks[i].off, c->syn->toks[i].len);
	}
	return astra_buf_detach(&b, NULL);
}

/*
 * Is s a distributed loop `for (T v = START; v < LIMIT; v += STRIDE)` with
 * a matching START/STRIDE pair?  Fills u; returns 1, or 0 (not one).
 */
static int loop_header(struct ck *c, struct astra_stmt *s, struct unit *u)
{
	const struct astra_syn *syn = c->syn;
	struct astra_decl *d = NULL;
	struct astra_expr *start, *stride;
	enum astra_tix ts, tr;
	size_t nd, eq;
	char *var;

	if (s->kind != STMT_FOR || !astra_syn_looks_like_decl(syn, s->a0, s->a1))
		return 0;
	nd = astra_syn_decls(syn, s->a0, s->a1, &d);
	if (nd != 1 || d[0].init1 <= d[0].init0 || d[0].ptr1 != d[0].ptr0 || d[0].is_array) {
		free(d);
		return 0;
	}
	var = astra_syn_tokstr(syn, d[0].name);
	start = astra_syn_expr(c->syn, d[0].init0, d[0].init1);
	/* cond: v < LIMIT */
	if (!(s->b1 > s->b0 + 2 && astra_syn_is(syn, s->b0, var) && astra_syn_is(syn, s->b0 + 1, "<")) ||
	    astra_syn_mentions(syn, s->b0 + 2, s->b1, var)) {
		free(var);
		free(d);
		return 0;
	}
	/* incr: v += STRIDE */
	eq = s->c0 + 1;
	if (!(s->c1 > s->c0 + 2 && astra_syn_is(syn, s->c0, var) && astra_syn_is(syn, eq, "+="))) {
		free(var);
		free(d);
		return 0;
	}
	stride = astra_syn_expr(c->syn, eq + 1, s->c1);
	ts = astra_facts_tix(&c->f, start);
	tr = astra_facts_tix(&c->f, stride);
	if (!((ts == TIX_TID && tr == TIX_BDIM) || (ts == TIX_GTID && tr == TIX_GSTRIDE) ||
	      (ts == TIX_LANE && tr == TIX_WARP))) {
		free(var);
		free(d);
		return 0;
	}
	memset(u, 0, sizeof(*u));
	u->stmt = s;
	u->body = s->kids[0];
	u->body_off = astra_syn_off(syn, u->body->t0);
	u->body_end = astra_syn_end(syn, u->body->t1 - 1);
	u->var = var;
	u->var_type = var_type_text(c, &d[0]);
	u->start = astra_syn_text(syn, d[0].init0, d[0].init1);
	u->limit = astra_syn_text(syn, s->b0 + 2, s->b1);
	u->stride = astra_syn_text(syn, eq + 1, s->c1);
	u->lane_loop = ts == TIX_LANE;
	free(d);
	return 1;
}

struct loops {
	struct ck *c;
	struct astra_stmt **v;
	size_t nr, alloc;
};

static int find_loops(struct astra_stmt *s, void *data)
{
	struct loops *l = data;
	struct unit u;
	if (s->kind == STMT_FOR && loop_header(l->c, s, &u)) {
		unit_release(&u);
		ALLOC_GROW(l->v, l->nr + 1, l->alloc);
		l->v[l->nr++] = s;
	}
	return 0;
}

/* The widest element (bytes, of the narrowest instantiation) among vectorized groups. */
static int widest(struct ck *c, int *unknown)
{
	struct unit *u = c->u;
	int gi, w = 0;
	for (gi = 0; gi < u->nr_groups; gi++) {
		int mn, mx;
		if (!u->groups[gi].mode)
			continue;
		if (astra_rk_type_size(c->rk, u->groups[gi].elem, &mn, &mx) < 0) {
			*unknown = 1;
			astra_buf_addf(c->why, "the size of %s is unknown (no types() for it)", u->groups[gi].elem);
			return 0;
		}
		if (mn > w)
			w = mn;
	}
	return w;
}

static int choose_ept(struct ck *c)
{
	int unknown = 0, w = widest(c, &unknown);
	if (unknown)
		return -1;
	if (c->o->ept)
		return c->o->ept;
	if (!w)
		return 0;
	if (w >= 16) {
		astra_buf_adds(c->why, "the elements are 16 bytes wide already");
		return -1;
	}
	return 16 / w;
}

static char *pick_prefix(const char *text)
{
	int n;
	for (n = 0;; n++) {
		char *p = xasprintf("astra_c%d", n);
		if (!strstr(text, p))
			return p;
		free(p);
	}
}

/* ------------------------------------------------------- register cache */

/*
 * Move group g's chunk at i0 between memory and reg (store: reg to memory):
 * a vector access when vec, else element by element.
 */
static void gen_chunk_move(struct ck *c, struct group *g, const char *reg, const char *i0, const char *vec,
			   const char *k, int ind, int store, struct astra_buf *b)
{
	char *a = astra_chunk_addr(g, i0);
	astra_chunk_indent(b, ind);
	astra_buf_addf(b, "if (%s) {\n", vec);
	astra_chunk_indent(b, ind + 1);
	if (store)
		astra_buf_addf(b, "%s<%d * (int)sizeof(%s)>(%s, %s);\n", ASTRA_HELPER("st"), c->ept, g->elem, a, reg);
	else
		astra_buf_addf(b, "%s<%d * (int)sizeof(%s)>(%s, %s);\n",
			       g->ldg ? ASTRA_HELPER("ldg") : ASTRA_HELPER("ld"), c->ept, g->elem, reg, a);
	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "} else {\n");
	astra_chunk_indent(b, ind + 1);
	astra_buf_adds(b, "#pragma unroll\n");
	astra_chunk_indent(b, ind + 1);
	astra_buf_addf(b, "for (int %s = 0; %s < %d; ++%s)\n", k, k, c->ept, k);
	astra_chunk_indent(b, ind + 2);
	astra_buf_addf(b, "if (%s + %s < (%s))\n", i0, k, c->u->limit);
	astra_chunk_indent(b, ind + 3);
	if (store)
		astra_buf_addf(b, "(%s)[%s] = %s[%s];\n", a, k, reg, k);
	else
		astra_buf_addf(b, "%s[%s] = (%s)[%s];\n", reg, k, a, k);
	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "}\n");
	free(a);
}

/* " && al(addr, bytes)" for group g's chunk at i0, appended to al. */
static void add_align_test(struct ck *c, struct group *g, const char *i0, struct astra_buf *al)
{
	char *a = astra_chunk_addr(g, i0), *by = astra_chunk_bytes_expr(c, g);
	astra_buf_addf(al, " &&\n\t\t    %s(%s, (%s) < 16 ? (%s) : 16)", ASTRA_HELPER("al"), a, by, by);
	free(a);
	free(by);
}

/* Does the loop read group g into the row cache here, for the first time? */
static int fills_cache(const struct group *g)
{
	return (g->mode == 'R' || g->mode == 'X') && g->cached >= 0 && g->first;
}

/*
 * The cached form of the loop c->u: C chunks per thread, unrolled, so the
 * register arrays of cached data stay in registers from one loop to the
 * next.  Every element runs the body once from registers; vector or scalar
 * accesses fill and drain them depending on alignment and the row's end.
 */
static int gen_cached(struct ck *c, int cache, int ind, struct astra_buf *b)
{
	struct unit *u = c->u;
	struct astra_buf al = ASTRA_BUF_INIT, bt = ASTRA_BUF_INIT, fal = ASTRA_BUF_INIT;
	char *cc = xasprintf("%s_cc", c->pfx), *i0 = xasprintf("%s_i0", c->pfx), *k = xasprintf("%s_k", c->pfx);
	char *vec = xasprintf("%s_vec", c->pfx), *fvec = xasprintf("%s_fvec", c->pfx);
	int gi, r = 0, any_align = 0, fills = 0;

	/*
	 * The chunks that fill the cache are loaded in a pass of their own,
	 * before any of them is used: the loads of all the chunks are then in
	 * flight together, where a pass that loads a chunk and uses it before
	 * loading the next waits for memory once per chunk.
	 */
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		if (!fills_cache(g))
			continue;
		add_align_test(c, g, i0, &fal);
		fills = 1;
	}
	if (fills) {
		astra_chunk_indent(b, ind);
		astra_buf_adds(b, "#pragma unroll\n");
		astra_chunk_indent(b, ind);
		astra_buf_addf(b, "for (int %s = 0; %s < %d; ++%s) {\n", cc, cc, cache, cc);
		astra_chunk_indent(b, ind + 1);
		astra_buf_addf(b, "const %s %s = (%s) * %d + %s * (%s) * %d;\n", u->var_type, i0, u->start, c->ept, cc,
			       u->stride, c->ept);
		astra_chunk_indent(b, ind + 1);
		astra_buf_addf(b, "if (%s < (%s)) {\n", i0, u->limit);
		astra_chunk_indent(b, ind + 2);
		astra_buf_addf(b, "const bool %s = %s + %d <= (%s)%s;\n", fvec, i0, c->ept, u->limit, fal.buf);
		for (gi = 0; gi < u->nr_groups; gi++) {
			struct group *g = &u->groups[gi];
			char *reg;
			if (!fills_cache(g))
				continue;
			reg = xasprintf("%s_rc%d[%s]", c->pfx, g->cached, cc);
			gen_chunk_move(c, g, reg, i0, fvec, k, ind + 2, 0, b);
			free(reg);
		}
		astra_chunk_indent(b, ind + 1);
		astra_buf_adds(b, "}\n");
		astra_chunk_indent(b, ind);
		astra_buf_adds(b, "}\n");
	}

	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "#pragma unroll\n");
	astra_chunk_indent(b, ind);
	astra_buf_addf(b, "for (int %s = 0; %s < %d; ++%s) {\n", cc, cc, cache, cc);
	astra_chunk_indent(b, ind + 1);
	astra_buf_addf(b, "const %s %s = (%s) * %d + %s * (%s) * %d;\n", u->var_type, i0, u->start, c->ept, cc, u->stride,
		       c->ept);
	astra_chunk_indent(b, ind + 1);
	astra_buf_addf(b, "if (%s < (%s)) {\n", i0, u->limit);
	/* alignment of what this pass moves through memory */
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		if (!g->mode || (g->cached >= 0 && g->mode == 'R'))
			continue;
		add_align_test(c, g, i0, &al);
		any_align = 1;
	}
	{
		int moves = 0;
		for (gi = 0; gi < u->nr_groups; gi++) {
			struct group *g = &u->groups[gi];
			if (g->mode == 'W' || g->mode == 'X' || (g->mode == 'R' && g->cached < 0))
				moves = 1;
		}
		if (moves) {
			astra_chunk_indent(b, ind + 2);
			astra_buf_addf(b, "const bool %s = %s + %d <= (%s)%s;\n", vec, i0, c->ept, u->limit,
				       any_align ? al.buf : "");
		}
	}
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		if (!g->mode)
			continue;
		if (g->cached >= 0) {
			free(g->reg);
			g->reg = xasprintf("%s_rc%d[%s]", c->pfx, g->cached, cc);
		} else {
			astra_chunk_indent(b, ind + 2);
			astra_buf_addf(b, "alignas(16) %s %s_v%d[%d];\n", g->elem, c->pfx, gi, c->ept);
			g->reg = xasprintf("%s_v%d", c->pfx, gi);
		}
		if (!(g->mode == 'R' || g->mode == 'X') || g->cached >= 0)
			continue;
		gen_chunk_move(c, g, g->reg, i0, vec, k, ind + 2, 0, b);
	}
	astra_chunk_indent(b, ind + 2);
	astra_buf_adds(b, "#pragma unroll\n");
	astra_chunk_indent(b, ind + 2);
	astra_buf_addf(b, "for (int %s = 0; %s < %d; ++%s) {\n", k, k, c->ept, k);
	astra_chunk_indent(b, ind + 3);
	astra_buf_addf(b, "if (%s + %s < (%s)) {\n", i0, k, u->limit);
	if (astra_chunk_body_text2(c, k, &bt, 1, 1) < 0)
		r = -1;
	if (astra_chunk_text_mentions(bt.buf, u->var)) {
		astra_chunk_indent(b, ind + 4);
		astra_buf_addf(b, "%s %s = %s + %s;\n", u->var_type, u->var, i0, k);
	}
	astra_chunk_add_body(c, bt.buf, ind + 4, b);
	astra_chunk_indent(b, ind + 3);
	astra_buf_adds(b, "}\n");
	astra_chunk_indent(b, ind + 2);
	astra_buf_adds(b, "}\n");
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		if (g->mode == 'W' || g->mode == 'X')
			gen_chunk_move(c, g, g->reg, i0, vec, k, ind + 2, 1, b);
	}
	astra_chunk_indent(b, ind + 1);
	astra_buf_adds(b, "}\n");
	astra_chunk_indent(b, ind);
	astra_buf_adds(b, "}\n");
	for (gi = 0; gi < u->nr_groups; gi++) {
		free(u->groups[gi].reg);
		u->groups[gi].reg = NULL;
	}
	astra_buf_release(&al);
	astra_buf_release(&fal);
	astra_buf_release(&bt);
	free(cc);
	free(i0);
	free(k);
	free(vec);
	free(fvec);
	return r;
}

/* Does the kernel write param p outside the loops in v (statements not inside any of them)? */
struct outside {
	struct ck *c;
	struct astra_stmt **loops;
	size_t nr;
	const struct astra_param *p;
	int written;
};

static int outside_expr(struct astra_expr *e, void *data)
{
	struct outside *o = data;
	struct astra_expr *lhs = NULL;
	char *off = NULL;
	const struct astra_param *p;
	if (e->kind == EX_ASSIGN || e->kind == EX_POSTFIX ||
	    (e->kind == EX_UNARY && (astra_syn_is(o->c->syn, e->op, "++") || astra_syn_is(o->c->syn, e->op, "--"))))
		lhs = e->a;
	while (lhs && (lhs->kind == EX_PAREN || lhs->kind == EX_MEMBER))
		lhs = lhs->a;
	if (!lhs || lhs->kind != EX_INDEX)
		return 0;
	if (lhs->a->kind != EX_IDENT) {
		o->written = 1;
		return 0;
	}
	p = astra_facts_pointer(&o->c->f, o->c->syn->text + o->c->syn->toks[lhs->a->t0].off,
				o->c->syn->toks[lhs->a->t0].len, &off);
	free(off);
	if (!p) {
		const struct astra_local *l = astra_facts_local_tok(&o->c->f, lhs->a->t0);
		if (!l || !l->d.is_array)
			o->written = 1;
	} else if (p == o->p) {
		o->written = 1;
	}
	return 0;
}

static int outside_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e,
			void *data)
{
	struct outside *o = data;
	size_t i;
	(void)f;
	(void)t1;
	for (i = 0; i < o->nr; i++)
		if (t0 >= o->loops[i]->t0 && t0 < o->loops[i]->t1)
			return 0;
	(void)s;
	if (!e)
		o->written = 1;
	else
		astra_expr_walk(e, outside_expr, o);
	return 0;
}

/*
 * Cache mode: among the loops spread over threads, those with one header
 * in one block that read the same data keep that data in registers.
 */
static int apply_cache(struct ck *c, struct astra_stmt **loops, size_t nr)
{
	struct unit *units = xcalloc(nr, sizeof(*units));
	struct astra_buf *caller_why = c->why, why = ASTRA_BUF_INIT;
	struct astra_syn_edits edits = { NULL, 0, 0 };
	char **slot_key = NULL, **slot_elem = NULL;
	const struct astra_param **slot_param = NULL;
	size_t i, j, nslots = 0, first = (size_t)-1, n_in = 0;
	int *in = xcalloc(nr, sizeof(int));
	int ept = 0, r = 0, cache = c->o->cache;
	long long maxlim;

	for (i = 0; i < nr; i++) {
		loop_header(c, loops[i], &units[i]);
		c->u = &units[i];
		c->why = &why;
		c->fail = 0;
		if (astra_chunk_analyse(c) == 0 && units[i].vectorized && !units[i].divisors.nr) {
			int e = choose_ept(c), gq;
			in[i] = e > 1;
			for (gq = 0; gq < units[i].nr_groups; gq++)
				if (units[i].groups[gq].mode && units[i].groups[gq].stride != 1)
					in[i] = 0;
			if (e > ept)
				ept = e;
		}
	}
	c->ept = ept;
	/* the first loop of the most common header that shares a read with another */
	for (i = 0; i < nr && first == (size_t)-1; i++) {
		int gi;
		if (!in[i])
			continue;
		for (gi = 0; gi < units[i].nr_groups && first == (size_t)-1; gi++) {
			struct group *g = &units[i].groups[gi];
			if (g->mode != 'R' && g->mode != 'X')
				continue;
			for (j = i + 1; j < nr; j++) {
				int gj;
				if (!in[j] || loops[j]->parent != loops[i]->parent || strcmp(units[j].start, units[i].start) ||
				    strcmp(units[j].limit, units[i].limit) || strcmp(units[j].stride, units[i].stride))
					continue;
				for (gj = 0; gj < units[j].nr_groups; gj++)
					if (units[j].groups[gj].mode && !strcmp(units[j].groups[gj].key, g->key))
						first = i;
			}
		}
	}
	if (first == (size_t)-1) {
		astra_buf_addf(caller_why, "no two loops over the same range read the same data through vector accesses%s%s",
			       why.len ? " (" : "", why.len ? why.buf : "");
		if (why.len)
			astra_buf_addch(caller_why, ')');
		goto out;
	}
	for (i = 0; i < nr; i++)
		if (i != first && !(in[i] && loops[i]->parent == loops[first]->parent &&
				     !strcmp(units[i].start, units[first].start) && !strcmp(units[i].limit, units[first].limit) &&
				     !strcmp(units[i].stride, units[first].stride) && i > first))
			in[i] = 0;
	/* the slots: data read in two of the loops and written nowhere else */
	for (i = first; i < nr; i++) {
		int gi;
		if (!in[i])
			continue;
		n_in++;
		for (gi = 0; gi < units[i].nr_groups; gi++) {
			struct group *g = &units[i].groups[gi];
			size_t s, uses = 0;
			int ok = 1;
			struct outside o;
			if (g->mode != 'R' && g->mode != 'X')
				continue;
			for (s = 0; s < nslots; s++)
				if (!strcmp(slot_key[s], g->key))
					break;
			if (s < nslots)
				continue;
			for (j = first; j < nr; j++) {
				int gj;
				if (!in[j])
					continue;
				for (gj = 0; gj < units[j].nr_groups; gj++) {
					struct group *h = &units[j].groups[gj];
					if (h->param != g->param)
						continue;
					if (!strcmp(h->key, g->key) && h->mode)
						uses++;
					else if (h->writes)
						ok = 0; /* other parts of the buffer change */
				}
			}
			memset(&o, 0, sizeof(o));
			o.c = c;
			o.loops = loops;
			o.nr = nr;
			o.p = g->param;
			astra_facts_each_part(&c->f, c->syn->body, outside_part, &o);
			if (o.written || uses < 2 || !ok || units[i].unresolved_writes)
				continue;
			slot_key = xrealloc(slot_key, (nslots + 1) * sizeof(*slot_key));
			slot_elem = xrealloc(slot_elem, (nslots + 1) * sizeof(*slot_elem));
			slot_param = xrealloc(slot_param, (nslots + 1) * sizeof(*slot_param));
			slot_key[nslots] = xstrdup(g->key);
			slot_elem[nslots] = xstrdup(g->elem);
			slot_param[nslots] = g->param;
			nslots++;
		}
	}
	if (!nslots || n_in < 2) {
		astra_buf_adds(caller_why, "the data several loops read is written elsewhere in the kernel");
		goto out;
	}
	/*
	 * Chunks per thread: enough for the row of the shape with the most
	 * data, at most 64 elements per slot.  Sized for the longest row of
	 * any shape instead, a short-batch shape with long rows (64 rows of
	 * 32000) would reserve registers that the large shape pays for in
	 * occupancy; longer rows take the streaming loops.
	 */
	if (cache <= 0) {
		long blk = strstr(units[first].stride, "32") ? 32 : astra_rk_block_at_largest(c->rk);
		maxlim = astra_rk_at_largest_shape(c->rk, units[first].limit);
		if (maxlim <= 0)
			maxlim = astra_rk_max_over_shapes(c->rk, units[first].limit);
		cache = 8;
		if (maxlim > 0 && blk > 0)
			cache = (int)((maxlim + blk * ept - 1) / (blk * ept));
		if (cache < 1)
			cache = 1;
		while (cache * ept > 64)
			cache--;
	}
	/* generate */
	for (i = 0; i < nr; i++) {
		struct astra_buf b = ASTRA_BUF_INIT;
		size_t s;
		int ind = astra_chunk_line_indent(c, astra_syn_off(c->syn, loops[i]->t0));
		c->u = &units[i];
		c->why = &why;
		if (!units[i].vectorized || ept <= 1) {
			unit_release(&units[i]);
			continue;
		}
		if (!in[i]) {
			if (astra_chunk_gen_loop(c, &b) == 0)
				astra_syn_edit_owned(&edits, astra_syn_off(c->syn, loops[i]->t0),
						      astra_syn_end(c->syn, loops[i]->t1 - 1), astra_buf_detach(&b, NULL));
			astra_buf_release(&b);
			continue;
		}
		for (j = 0; j < (size_t)units[i].nr_groups; j++) {
			struct group *g = &units[i].groups[j];
			g->cached = -1;
			for (s = 0; s < nslots; s++)
				if (g->mode && !strcmp(slot_key[s], g->key)) {
					size_t f2;
					g->cached = (int)s;
					g->first = 1;
					for (f2 = first; f2 < i; f2++) {
						int gk;
						if (!in[f2])
							continue;
						for (gk = 0; gk < units[f2].nr_groups; gk++)
							if (units[f2].groups[gk].mode && !strcmp(units[f2].groups[gk].key, g->key))
								g->first = 0;
					}
				}
		}
		astra_buf_addf(&b, "if (%s_fit) {\n", c->pfx);
		r = gen_cached(c, cache, ind + 1, &b);
		astra_chunk_indent(&b, ind);
		astra_buf_adds(&b, "} else {\n");
		for (j = 0; j < (size_t)units[i].nr_groups; j++)
			units[i].groups[j].cached = -1;
		astra_chunk_indent(&b, ind + 1);
		if (!r)
			r = astra_chunk_gen_loop(c, &b);
		astra_buf_addch(&b, '\n');
		astra_chunk_indent(&b, ind);
		astra_buf_adds(&b, "}");
		if (i == first) {
			struct astra_buf d = ASTRA_BUF_INIT;
			astra_buf_addf(&d, "const bool %s_fit = (%s) <= %d * (%s) * %d;\n", c->pfx, units[i].limit, cache,
				       units[i].stride, ept);
			for (s = 0; s < nslots; s++) {
				astra_chunk_indent(&d, ind);
				astra_buf_addf(&d, "alignas(16) %s %s_rc%zu[%d][%d];\n", slot_elem[s], c->pfx, s, cache, ept);
			}
			astra_chunk_indent(&d, ind);
			astra_buf_add(&d, b.buf, b.len);
			astra_buf_release(&b);
			b = d;
		}
		astra_syn_edit_owned(&edits, astra_syn_off(c->syn, loops[i]->t0), astra_syn_end(c->syn, loops[i]->t1 - 1),
				      astra_buf_detach(&b, NULL));
		if (r < 0)
			break;
	}
	if (r < 0 || astra_rk_edit(c->rk, &edits) < 0) {
		r = -1;
		goto out;
	}
	c->rk->helpers |= HELPER_VEC;
	r = 1;
out:
	for (i = 0; i < nr; i++)
		unit_release(&units[i]);
	for (i = 0; i < nslots; i++) {
		free(slot_key[i]);
		free(slot_elem[i]);
	}
	free(slot_key);
	free(slot_elem);
	free(slot_param);
	free(units);
	free(in);
	astra_syn_edits_release(&edits);
	astra_buf_release(&why);
	c->why = caller_why;
	c->u = NULL;
	return r;
}

static int apply_loops(struct ck *c)
{
	struct loops l = { c, NULL, 0, 0 };
	struct astra_syn_edits edits = { NULL, 0, 0 };
	struct astra_buf reasons = ASTRA_BUF_INIT, *caller_why = c->why;
	size_t i;
	int done = 0, ept = 0;

	astra_syn_walk(c->syn->body, find_loops, &l);
	if (!l.nr) {
		astra_buf_adds(c->why, "no loop spread over threads (for (i = threadIdx.x; i < n; i += blockDim.x), "
				       "a grid-stride loop, or a lane loop) to vectorize");
		return 0;
	}
	if (c->o->cache) {
		int r = apply_cache(c, l.v, l.nr);
		free(l.v);
		return r;
	}
	/* one EPT for the whole kernel: the widest element decides */
	for (i = 0; i < l.nr; i++) {
		struct unit u;
		struct astra_buf why = ASTRA_BUF_INIT;
		int e;
		loop_header(c, l.v[i], &u);
		c->u = &u;
		c->why = &why;
		c->fail = 0;
		if (astra_chunk_analyse(c) == 0 && u.vectorized) {
			e = choose_ept(c);
			if (e > ept)
				ept = e;
		}
		unit_release(&u);
		astra_buf_release(&why);
	}
	c->ept = ept;
	for (i = 0; i < l.nr; i++) {
		struct unit u;
		struct astra_buf why = ASTRA_BUF_INIT;
		struct astra_buf b = ASTRA_BUF_INIT;
		loop_header(c, l.v[i], &u);
		c->u = &u;
		c->why = &why;
		c->fail = 0;
		if (astra_chunk_analyse(c) < 0 || !u.vectorized || ept <= 1) {
			char *h = astra_syn_text(c->syn, l.v[i]->t0, l.v[i]->kids[0]->t0);
			astra_buf_addf(&reasons, "%s`%s`: %s", reasons.len ? "; " : "", h,
				       why.len ? why.buf : !u.vectorized ? "no access indexed by the loop index plus an invariant" :
						 "elements too wide");
			free(h);
		} else if (astra_chunk_gen_loop(c, &b) == 0) {
			astra_syn_edit_owned(&edits, astra_syn_off(c->syn, l.v[i]->t0), astra_syn_end(c->syn, l.v[i]->t1 - 1),
					      astra_buf_detach(&b, NULL));
			done++;
		}
		astra_buf_release(&b);
		astra_buf_release(&why);
		unit_release(&u);
	}
	free(l.v);
	c->u = NULL;
	c->why = caller_why;
	if (!done) {
		astra_syn_edits_release(&edits);
		astra_buf_adds(caller_why, reasons.buf);
		astra_buf_release(&reasons);
		return 0;
	}
	astra_buf_release(&reasons);
	if (astra_rk_edit(c->rk, &edits) < 0) {
		astra_syn_edits_release(&edits);
		return -1;
	}
	astra_syn_edits_release(&edits);
	c->rk->helpers |= HELPER_VEC;
	return 1;
}

/* ------------------------------------------------------------- guard */

/* `v >= N` or `N <= v`: N's tokens; `v < N` / `N > v` likewise with *lt set. */
static int guard_cond(struct ck *c, struct astra_stmt *s, const char *var, size_t *n0, size_t *n1, int *lt)
{
	const struct astra_syn *syn = c->syn;
	if (s->a1 < s->a0 + 3)
		return 0;
	if (astra_syn_is(syn, s->a0, var) && (astra_syn_is(syn, s->a0 + 1, ">=") || astra_syn_is(syn, s->a0 + 1, "<"))) {
		*lt = astra_syn_is(syn, s->a0 + 1, "<");
		*n0 = s->a0 + 2;
		*n1 = s->a1;
	} else if (astra_syn_is(syn, s->a1 - 1, var) &&
		   (astra_syn_is(syn, s->a1 - 2, "<=") || astra_syn_is(syn, s->a1 - 2, ">"))) {
		*lt = astra_syn_is(syn, s->a1 - 2, ">");
		*n0 = s->a0;
		*n1 = s->a1 - 2;
	} else {
		return 0;
	}
	return !astra_syn_mentions(syn, *n0, *n1, var);
}

static int is_return(const struct astra_stmt *s)
{
	if (s->kind == STMT_BLOCK && s->nr_kids == 1)
		s = s->kids[0];
	return s->kind == STMT_RETURN && s->t1 == s->t0 + 2;
}

/*
 * Below this many chunks per block of the launch (about one wave of blocks
 * on a 132-SM H100), the variant runs one element per thread as the
 * original: too few threads keep too few loads in flight, and the H100
 * measured the chunked variants 0.5 us slower at 4096 elements.
 */
#define MIN_CHUNK_BLOCKS 128

/*
 * The condition under which the chunks' vector path can apply, on the
 * kernel's parameters only (so that the launch and the kernel agree on it):
 * the divisors of the index keep a chunk in one row, and the range fills a
 * wave of chunked blocks.  NULL when a divisor is not an expression of the
 * parameters.  n and block are parameter expressions; blk: block when a literal, else 0.
 */
static char *uniform_cond(struct ck *c, const char *n, long blk, const char *block)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_vec seen = ASTRA_VEC_INIT;
	size_t i;
	for (i = 0; i < c->u->divisors.nr; i++) {
		const char *dv = c->u->divisors.v[i];
		char *d;
		if (astra_vec_find(&seen, dv) >= 0)
			continue;
		astra_vec_push(&seen, dv);
		d = strstr(dv, "@I0@") ? NULL : astra_facts_to_params(&c->f, dv);
		if (!d || !astra_rk_params_only(c->rk, d)) {
			free(d);
			astra_vec_clear(&seen);
			astra_buf_release(&b);
			return NULL;
		}
		astra_buf_addf(&b, "(%s) %% %d == 0 && ", d, c->ept);
		free(d);
	}
	astra_vec_clear(&seen);
	if (blk)
		astra_buf_addf(&b, "(%s) >= %ld", n, blk * c->ept * MIN_CHUNK_BLOCKS);
	else
		astra_buf_addf(&b, "(%s) >= (%s) * %d", n, block, c->ept * MIN_CHUNK_BLOCKS);
	/* the kernel tests it after its first statements: they must not change a parameter it reads */
	for (i = c->syn->body->t0; i < c->syn->body->t1; i++) {
		const struct astra_syn_tok *tk = &c->syn->toks[i];
		const struct astra_param *p;
		if (tk->kind != SYN_IDENT || !(p = astra_rk_param(c->rk, c->syn->text + tk->off, tk->len)))
			continue;
		if (astra_chunk_text_mentions(b.buf, p->name) &&
		    astra_facts_assigned_in(&c->f, p->name, strlen(p->name), c->syn->body->t0, c->syn->body->t1)) {
			astra_buf_release(&b);
			return NULL;
		}
	}
	return astra_buf_detach(&b, NULL);
}

/* Append text (which began at byte off of the kernel) with one more tab on each line. */
static void add_indented(struct ck *c, size_t off, size_t end, int ind, struct astra_buf *b)
{
	const char *t = c->rk->text;
	astra_chunk_indent(b, ind);
	while (off < end) {
		const char *e = memchr(t + off, '\n', end - off);
		size_t le = e ? (size_t)(e - t) : end;
		astra_buf_add(b, t + off, le - off);
		astra_buf_addch(b, '\n');
		off = le + 1;
		if (off < end && t[off] != '\n')
			astra_buf_addch(b, '\t');
	}
}

static int apply_guard(struct ck *c)
{
	struct astra_stmt *body = c->syn->body, *g = NULL;
	struct unit u;
	size_t vi, gi = 0, n0 = 0, n1 = 0;
	const struct astra_local *l = NULL;
	int lt = 0, ept, r = 0;
	long blk;
	char *nparams = NULL, *bparams = NULL;

	/* the index: a local set once to blockIdx.x * blockDim.x + threadIdx.x */
	for (vi = 0; vi < body->nr_kids; vi++) {
		struct astra_stmt *s = body->kids[vi];
		struct astra_decl *d = NULL;
		if (s->kind == STMT_DECL && astra_syn_decls(c->syn, s->a0, s->a1, &d) == 1 && d[0].init1 > d[0].init0) {
			struct astra_expr *init = astra_syn_expr(c->syn, d[0].init0, d[0].init1);
			if (init && astra_facts_tix(&c->f, init) == TIX_GTID) {
				l = astra_facts_local_tok(&c->f, d[0].name);
				free(d);
				break;
			}
		}
		free(d);
	}
	if (!l || l->nr_decls != 1 || l->assigned) {
		astra_buf_adds(c->why, "no `i = blockIdx.x * blockDim.x + threadIdx.x` index set once at the top of the kernel");
		return 0;
	}
	memset(&u, 0, sizeof(u));
	c->u = &u;
	u.var = xstrdup(l->name);
	/* the guard */
	for (gi = vi + 1; gi < body->nr_kids; gi++) {
		struct astra_stmt *s = body->kids[gi];
		if (s->kind == STMT_IF) {
			g = s;
			break;
		}
		if (s->kind != STMT_DECL || astra_syn_mentions(c->syn, s->t0, s->t1, u.var)) {
			astra_buf_adds(c->why, "statements between the index and its bounds check");
			goto out;
		}
	}
	if (!g || !guard_cond(c, g, u.var, &n0, &n1, &lt)) {
		astra_buf_addf(c->why, "no bounds check `if (%s >= N) return;` or `if (%s < N) { ... }` after the index", u.var,
			       u.var);
		goto out;
	}
	if (!lt && g->nr_kids == 1 && is_return(g->kids[0]) && gi + 1 < body->nr_kids) {
		u.multi = 1;
		u.body = body->kids[gi + 1];
		u.body_off = astra_syn_off(c->syn, u.body->t0);
		u.body_end = astra_syn_end(c->syn, body->kids[body->nr_kids - 1]->t1 - 1);
	} else if (lt && g->nr_kids == 1 && gi + 1 == body->nr_kids) {
		u.body = g->kids[0];
		u.body_off = astra_syn_off(c->syn, u.body->t0);
		u.body_end = astra_syn_end(c->syn, u.body->t1 - 1);
	} else {
		astra_buf_adds(c->why, "the bounds check is not followed by the whole rest of the kernel");
		goto out;
	}
	u.stmt = body->kids[vi];
	u.var_type = var_type_text(c, &l->d);
	u.limit = astra_syn_text(c->syn, n0, n1);
	u.start = astra_syn_text(c->syn, l->d.init0, l->d.init1);
	u.stride = xstrdup("");
	nparams = astra_facts_to_params(&c->f, u.limit);
	blk = astra_rk_block_literal(c->rk);
	bparams = c->rk->block && astra_rk_params_only(c->rk, c->rk->block) ? xstrdup(c->rk->block) : NULL;
	if (!nparams || !astra_rk_params_only(c->rk, nparams) || !bparams) {
		astra_buf_addf(c->why, "the element count (%s) or the block size (%s) is not an expression of the "
				       "kernel's parameters, so the new grid cannot be computed", u.limit,
			       c->rk->block ? c->rk->block : "not given");
		goto out;
	}
	if (astra_chunk_analyse(c) < 0)
		goto out;
	if (!u.vectorized) {
		astra_buf_adds(c->why, "no access indexed by the element index plus an invariant");
		goto out;
	}
	ept = choose_ept(c);
	if (ept <= 1)
		goto out;
	c->ept = ept;
	{
		struct astra_buf b = ASTRA_BUF_INIT;
		struct astra_syn_edits e = { NULL, 0, 0 };
		char *i0 = xasprintf("%s_i0", c->pfx), *grid;
		int ind = astra_chunk_line_indent(c, astra_syn_off(c->syn, u.stmt->t0));
		char *uc = uniform_cond(c, nparams, blk, bparams);
		if (uc) {
			/* dual geometry: where the vector path cannot apply, the original */
			astra_buf_addf(&b, "if (!(%s)) {\n", uc);
			add_indented(c, astra_syn_off(c->syn, u.stmt->t0), astra_syn_end(c->syn, u.stmt->t1 - 1),
				     ind + 1, &b);
			add_indented(c, astra_syn_off(c->syn, g->t0),
				     astra_syn_end(c->syn, body->kids[body->nr_kids - 1]->t1 - 1), ind + 1, &b);
			astra_chunk_indent(&b, ind + 1);
			astra_buf_adds(&b, "return;\n");
			astra_chunk_indent(&b, ind);
			astra_buf_adds(&b, "}\n");
			astra_chunk_indent(&b, ind);
		}
		astra_buf_addf(&b, "const %s %s = (%s)(%s) * %d;\n", u.var_type, i0, u.var_type, u.start, ept);
		astra_chunk_indent(&b, ind);
		astra_buf_addf(&b, "if (%s >= (%s))\n", i0, u.limit);
		astra_chunk_indent(&b, ind + 1);
		astra_buf_adds(&b, "return;\n");
		if (astra_chunk_gen_chunk(c, i0, ind, &b) < 0) {
			astra_buf_release(&b);
			free(i0);
			free(uc);
			r = -1;
			goto out;
		}
		/* the index's declaration goes; from the guard to the end becomes the chunk */
		{
			size_t from = astra_syn_off(c->syn, body->kids[vi]->t0);
			size_t to = astra_syn_end(c->syn, body->kids[vi]->t1 - 1);
			astra_edit_delete(c->rk->text, from, to, &e);
			from = astra_syn_off(c->syn, g->t0);
			to = astra_syn_end(c->syn, body->kids[body->nr_kids - 1]->t1 - 1);
			astra_syn_edit_owned(&e, from, to, astra_buf_detach(&b, NULL));
		}
		if (astra_rk_edit(c->rk, &e) < 0) {
			astra_syn_edits_release(&e);
			free(i0);
			free(uc);
			r = -1;
			goto out;
		}
		astra_syn_edits_release(&e);
		free(i0);
		grid = blk ? xasprintf("((%s) + %ld - 1) / %ld", nparams, blk * ept, blk * ept)
			   : xasprintf("((%s) + (%s) * %d - 1) / ((%s) * %d)", nparams, bparams, ept, bparams, ept);
		if (uc) {
			char *one = blk ? xasprintf("((%s) + %ld - 1) / %ld", nparams, blk, blk)
					: xasprintf("((%s) + (%s) - 1) / (%s)", nparams, bparams, bparams);
			char *dual = xasprintf("(%s) ? %s : %s", uc, grid, one);
			free(one);
			free(grid);
			grid = dual;
			free(uc);
		}
		astra_rk_set_launch(c->rk, grid, c->rk->block, NULL);
		free(grid);
		c->rk->helpers |= HELPER_VEC;
		r = 1;
	}
out:
	free(nparams);
	free(bparams);
	unit_release(&u);
	c->u = NULL;
	return r;
}

int astra_chunk_apply(struct astra_rk *rk, const struct astra_chunk_opts *o, struct astra_buf *why)
{
	struct ck c;
	int r;
	memset(&c, 0, sizeof(c));
	c.rk = rk;
	c.o = o;
	c.why = why;
	if (astra_facts_build(&c.f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	c.syn = &rk->syn;
	c.pfx = pick_prefix(rk->text);
	if (astra_facts_mentions_grid(&c.f, rk->syn.body->t0, rk->syn.body->t1, 1)) {
		astra_buf_adds(why, "the kernel uses a 2-D or 3-D thread index");
		r = 0;
	} else {
		r = o->mode == CHUNK_LOOPS ? apply_loops(&c) : apply_guard(&c);
	}
	free(c.pfx);
	astra_facts_release(&c.f);
	return r;
}
