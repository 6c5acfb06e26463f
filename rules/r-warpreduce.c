/*
 * r-warpreduce.c - rule "warp-reduce": a shared-memory tree reduction
 * becomes warp shuffles.
 *
 * The idiom it recognizes, with any names:
 *
 *   red[tid] = E;
 *   __syncthreads();
 *   for (int s = blockDim.x / 2; s > 0; s >>= 1) {      (or s /= 2, or a literal start)
 *       if (tid < s)
 *           red[tid] += red[tid + s];                    (or = fmaxf(red[tid], red[tid + s]), max, fminf, min)
 *       __syncthreads();
 *   }
 *
 * where tid is threadIdx.x (or a local set to it) and red a __shared__
 * array.  It becomes
 *
 *   { T r = astra_bred_sum<T>((T)(E), true); if (tid == 0) red[0] = r; }
 *   __syncthreads();
 *
 * so the code that reads red[0] afterwards is unchanged.  The block
 * reduction shuffles within each warp and combines the per-warp values in
 * shared memory: log2(32) shuffle steps and two barriers (the reduction's
 * and the one after it, which also fences the next call: `true`) instead
 * of log2(blockDim) barriers.  It also works when blockDim.x is not a power
 * of two.  The order of the additions changes (the verifier's tolerance
 * covers it).  A literal start (s = 128) is accepted only when the block
 * size is that literal times two.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "front/lex.h"
#include "rules/facts.h"
#include "rules/helpers.h"
#include "rules/rule.h"
#include "rules/trees.h"

#define NONE ((size_t)-1)

struct wr {
	struct astra_rk *rk;
	struct astra_facts f;
	struct astra_syn *syn;
	int warp_rows;             /* a warp per row (trees.h): shuffles over the warp, per-warp arrays */
	struct astra_syn_edits edits;
	unsigned helpers;
	int count;
	struct astra_buf *why;
	struct astra_buf detail;   /* why a tree-shaped loop was not taken */
};

static int is_tid(struct wr *w, const struct astra_expr *e)
{
	return e && astra_facts_tix(&w->f, e) == TIX_TID;
}

/* e is `SD[TID]` (returns 1) or `SD[TID + s]` / `SD[s + TID]` (returns 2) for array name sd, var s. */
static int sd_ref(struct wr *w, const struct astra_expr *e, const char *sd, const char *s)
{
	const struct astra_expr *ix;
	while (e && e->kind == EX_PAREN)
		e = e->a;
	if (!e || e->kind != EX_INDEX || e->a->kind != EX_IDENT || !astra_syn_is(w->syn, e->a->t0, sd))
		return 0;
	ix = e->b;
	while (ix->kind == EX_PAREN)
		ix = ix->a;
	if (is_tid(w, ix))
		return 1;
	if (ix->kind == EX_BINARY && astra_syn_is(w->syn, ix->op, "+")) {
		const struct astra_expr *a = ix->a, *b = ix->b;
		if (is_tid(w, a) && b->kind == EX_IDENT && astra_syn_is(w->syn, b->t0, s))
			return 2;
		if (is_tid(w, b) && a->kind == EX_IDENT && astra_syn_is(w->syn, a->t0, s))
			return 2;
	}
	return 0;
}

/* The combining function of `SD[TID] op= ...`, or -1. */
static int combiner(struct wr *w, const struct astra_expr *e, const char *sd, const char *s)
{
	static const struct {
		const char *fn;
		enum astra_combine c;
	} fns[] = { { "fmaxf", COMBINE_FMAXF }, { "fminf", COMBINE_FMINF }, { "max", COMBINE_MAX }, { "min", COMBINE_MIN } };
	const struct astra_expr *r;
	size_t i;
	if (!e || e->kind != EX_ASSIGN || sd_ref(w, e->a, sd, s) != 1)
		return -1;
	r = e->b;
	while (r->kind == EX_PAREN)
		r = r->a;
	if (astra_syn_is(w->syn, e->op, "+="))
		return sd_ref(w, r, sd, s) == 2 ? COMBINE_SUM : -1;
	if (!astra_syn_is(w->syn, e->op, "="))
		return -1;
	if (r->kind == EX_BINARY && astra_syn_is(w->syn, r->op, "+") &&
	    sd_ref(w, r->a, sd, s) + sd_ref(w, r->b, sd, s) == 3)
		return COMBINE_SUM;
	if (r->kind == EX_CALL && r->a->kind == EX_IDENT && r->nr_args == 2 &&
	    sd_ref(w, r->args[0], sd, s) + sd_ref(w, r->args[1], sd, s) == 3)
		for (i = 0; i < ARRAY_SIZE(fns); i++)
			if (astra_syn_is(w->syn, r->a->t0, fns[i].fn))
				return fns[i].c;
	return -1;
}

static int is_sync(struct wr *w, const struct astra_stmt *s)
{
	return s && s->kind == STMT_EXPR && s->a1 == s->a0 + 3 && astra_syn_is(w->syn, s->a0, "__syncthreads");
}

static long literal(struct wr *w, size_t t0, size_t t1)
{
	char *s, *end;
	long v;
	if (t1 != t0 + 1 || w->syn->toks[t0].kind != SYN_NUMBER)
		return -1;
	s = astra_syn_tokstr(w->syn, t0);
	v = strtol(s, &end, 0);
	while (*end == 'u' || *end == 'U')
		end++;
	v = *end ? -1 : v;
	free(s);
	return v;
}

/* The tree loop at s over array sd: its combiner, or -1. */
static int tree_loop(struct wr *w, const struct astra_stmt *s, const char *sd)
{
	const struct astra_syn *syn = w->syn;
	struct astra_decl *d = NULL;
	const struct astra_stmt *body, *iff, *sync;
	char *var;
	int comb = -1;
	long lit;
	size_t b0 = s->b0, b1 = s->b1, c0 = s->c0, c1 = s->c1;

	if (s->kind != STMT_FOR || astra_syn_decls(syn, s->a0, s->a1, &d) != 1 || d[0].init1 <= d[0].init0) {
		free(d);
		return -1;
	}
	var = astra_syn_tokstr(syn, d[0].name);
	/* start: blockDim.x / 2, blockDim.x >> 1, or a constant (128, BLOCK / 2 once expanded) */
	lit = literal(w, d[0].init0, d[0].init1);
	if (lit < 0) {
		long long c;
		if (astra_facts_const_int(&w->f, astra_syn_expr(w->syn, d[0].init0, d[0].init1), &c) == 0 && c > 0)
			lit = (long)c;
	}
	if (lit < 0) {
		struct astra_expr *init = astra_syn_expr(w->syn, d[0].init0, d[0].init1);
		if (!init || init->kind != EX_BINARY || astra_facts_tix(&w->f, init->a) != TIX_BDIM ||
		    !((astra_syn_is(syn, init->op, "/") && astra_syn_is(syn, init->b->t0, "2")) ||
		      (astra_syn_is(syn, init->op, ">>") && astra_syn_is(syn, init->b->t0, "1"))) ||
		    init->b->t1 != init->b->t0 + 1)
			goto out;
	} else {
		long blk = astra_rk_block_literal(w->rk);
		if (blk != 2 * lit) {
			astra_buf_reset(&w->detail);
			astra_buf_addf(&w->detail, "the tree starts at %ld, which assumes %ld threads, but the block is %s", lit,
				       2 * lit, w->rk->block ? w->rk->block : "unknown");
			goto out;
		}
	}
	/* cond: s > 0, s >= 1, 0 < s */
	if (!(b1 == b0 + 3 && ((astra_syn_is(syn, b0, var) && ((astra_syn_is(syn, b0 + 1, ">") && astra_syn_is(syn, b0 + 2, "0")) ||
								 (astra_syn_is(syn, b0 + 1, ">=") && astra_syn_is(syn, b0 + 2, "1")))) ||
			       (astra_syn_is(syn, b0, "0") && astra_syn_is(syn, b0 + 1, "<") && astra_syn_is(syn, b0 + 2, var)))))
		goto out;
	/* incr: s >>= 1, s /= 2, s = s / 2, s = s >> 1 */
	if (!((c1 == c0 + 3 && astra_syn_is(syn, c0, var) &&
	       ((astra_syn_is(syn, c0 + 1, ">>=") && astra_syn_is(syn, c0 + 2, "1")) ||
		(astra_syn_is(syn, c0 + 1, "/=") && astra_syn_is(syn, c0 + 2, "2")))) ||
	      (c1 == c0 + 5 && astra_syn_is(syn, c0, var) && astra_syn_is(syn, c0 + 1, "=") && astra_syn_is(syn, c0 + 2, var) &&
	       ((astra_syn_is(syn, c0 + 3, "/") && astra_syn_is(syn, c0 + 4, "2")) ||
		(astra_syn_is(syn, c0 + 3, ">>") && astra_syn_is(syn, c0 + 4, "1"))))))
		goto out;
	/* body: { if (tid < s) COMBINE; __syncthreads(); } */
	body = s->kids[0];
	if (body->kind != STMT_BLOCK || body->nr_kids != 2)
		goto out;
	iff = body->kids[0];
	sync = body->kids[1];
	if (iff->kind != STMT_IF || iff->nr_kids != 1 || !is_sync(w, sync))
		goto out;
	{
		struct astra_expr *cond = astra_syn_expr(w->syn, iff->a0, iff->a1);
		const struct astra_stmt *then = iff->kids[0];
		if (!cond || cond->kind != EX_BINARY || !astra_syn_is(syn, cond->op, "<") || !is_tid(w, cond->a) ||
		    cond->b->kind != EX_IDENT || !astra_syn_is(syn, cond->b->t0, var))
			goto out;
		if (then->kind == STMT_BLOCK && then->nr_kids == 1)
			then = then->kids[0];
		if (then->kind != STMT_EXPR)
			goto out;
		comb = combiner(w, astra_syn_expr(w->syn, then->a0, then->a1), sd, var);
	}
out:
	free(var);
	free(d);
	return comb;
}

/* A __shared__ array of the kernel named by token t: its element type, or NULL. */
static char *shared_elem(struct wr *w, size_t t)
{
	const struct astra_local *l = astra_facts_local_tok(&w->f, t);
	if (!l || !l->is_shared || !l->d.is_array || l->nr_decls != 1)
		return NULL;
	{
		struct astra_buf b = ASTRA_BUF_INIT;
		size_t i;
		for (i = l->d.ty0; i < l->d.ty1; i++) {
			if (astra_syn_is(w->syn, i, "__shared__") || astra_syn_is(w->syn, i, "extern") ||
			    astra_syn_is(w->syn, i, "static") || astra_syn_is(w->syn, i, "volatile"))
				continue;
			if (b.len)
				astra_buf_addch(&b, ' ');
			astra_buf_add(&b, w->syn->text + w->syn->toks[i].off, w->syn->toks[i].len);
		}
		return astra_buf_detach(&b, NULL);
	}
}

/* `#pragma unroll` (with or without a count) */
static int is_unroll_pragma(struct wr *w, const struct astra_stmt *s)
{
	struct astra_lexed lx;
	const char *t = w->syn->text + w->syn->toks[s->t0].off;
	size_t n = w->syn->toks[s->t0].len;
	int r;
	if (astra_lex(t + 1, n - 1, 0, &lx) < 0) {
		astra_lexed_release(&lx);
		return 0;
	}
	r = lx.nr >= 2 && astra_lex_is(t + 1, &lx.toks[0], "pragma") && astra_lex_is(t + 1, &lx.toks[1], "unroll");
	astra_lexed_release(&lx);
	return r;
}

static int visit_block(struct astra_stmt *blk, void *data)
{
	struct wr *w = data;
	size_t i;
	if (blk->kind != STMT_BLOCK)
		return 0;
	for (i = 0; i + 2 < blk->nr_kids; i++) {
		struct astra_stmt *s1 = blk->kids[i], *s3 = blk->kids[i + 2];
		struct astra_expr *e;
		char *sd, *elem, *tid, *val;
		int comb, skip = 2;
		/* a `#pragma unroll` on the tree's loop goes with it */
		if (s3->kind == STMT_PP && i + 3 < blk->nr_kids && blk->kids[i + 3]->kind == STMT_FOR &&
		    is_unroll_pragma(w, s3)) {
			s3 = blk->kids[i + 3];
			skip = 3;
		}
		if (s1->kind != STMT_EXPR || !is_sync(w, blk->kids[i + 1]) || s3->kind != STMT_FOR)
			continue;
		e = astra_syn_expr(w->syn, s1->a0, s1->a1);
		if (!e || e->kind != EX_ASSIGN || !astra_syn_is(w->syn, e->op, "=") || e->a->kind != EX_INDEX ||
		    e->a->a->kind != EX_IDENT || !is_tid(w, e->a->b))
			continue;
		elem = shared_elem(w, e->a->a->t0);
		if (!elem)
			continue;
		sd = astra_syn_tokstr(w->syn, e->a->a->t0);
		comb = tree_loop(w, s3, sd);
		if (comb < 0) {
			free(sd);
			free(elem);
			continue;
		}
		tid = astra_syn_text(w->syn, e->a->b->t0, e->a->b->t1);
		val = astra_syn_text(w->syn, e->b->t0, e->b->t1);
		if (w->warp_rows) {
			const struct astra_local *l = astra_facts_local_tok(&w->f, e->a->a->t0);
			char *dim = astra_syn_text(w->syn, l->d.dim0, l->d.dim1);
			astra_syn_edit_owned(&w->edits, astra_syn_off(w->syn, s1->t0), astra_syn_end(w->syn, s3->t1 - 1),
					      xasprintf("{\n\t\t%s astra_r = astra_" ASTRA_SFX "_wred_%s<%s>((%s)(%s));\n"
							"\t\tif (astra_lane == 0)\n\t\t\t%s[astra_w * (%s)] = astra_r;\n\t}\n"
							"\t__syncwarp();",
							elem, astra_combine_name((enum astra_combine)comb), elem, elem, val, sd, dim));
			free(dim);
			w->helpers |= HELPER_WARP_OF(comb);
		} else {
			astra_syn_edit_owned(&w->edits, astra_syn_off(w->syn, s1->t0), astra_syn_end(w->syn, s3->t1 - 1),
					      xasprintf("{\n\t\t%s astra_r = astra_" ASTRA_SFX "_bred_%s<%s>((%s)(%s), true);\n"
							"\t\tif (%s == 0)\n\t\t\t%s[0] = astra_r;\n\t}\n\t__syncthreads();",
							elem, astra_combine_name((enum astra_combine)comb), elem, elem, val, tid, sd));
			w->helpers |= HELPER_BLOCK_OF(comb);
		}
		w->count++;
		free(sd);
		free(elem);
		free(tid);
		free(val);
		i += skip;
	}
	return 0;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct wr w;
	(void)arg;
	memset(&w, 0, sizeof(w));
	w.rk = rk;
	w.why = why;
	if (astra_facts_build(&w.f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	w.syn = &rk->syn;
	if (astra_facts_mentions_grid(&w.f, rk->syn.body->t0, rk->syn.body->t1, 1)) {
		astra_facts_release(&w.f);
		astra_buf_adds(why, "the kernel uses a 2-D or 3-D thread index");
		return 0;
	}
	astra_syn_walk(rk->syn.body, visit_block, &w);
	astra_facts_release(&w.f);
	if (!w.count) {
		astra_syn_edits_release(&w.edits);
		if (w.detail.len)
			astra_buf_add(why, w.detail.buf, w.detail.len);
		else
			astra_buf_adds(why, "no shared-memory tree reduction (`red[tid] = v; __syncthreads(); for (s = "
					    "blockDim.x/2; s > 0; s >>= 1) { if (tid < s) red[tid] += red[tid + s]; "
					    "__syncthreads(); }`)");
		astra_buf_release(&w.detail);
		return 0;
	}
	astra_buf_release(&w.detail);
	if (astra_rk_edit(rk, &w.edits) < 0) {
		astra_syn_edits_release(&w.edits);
		return -1;
	}
	astra_syn_edits_release(&w.edits);
	rk->helpers |= w.helpers;
	return 1;
}

int astra_trees_warp_rows(struct astra_rk *rk, struct astra_syn_edits *edits, unsigned *helpers)
{
	struct wr w;
	memset(&w, 0, sizeof(w));
	w.rk = rk;
	w.warp_rows = 1;
	if (astra_facts_build(&w.f, rk) < 0)
		return -1;
	w.syn = &rk->syn;
	astra_syn_walk(rk->syn.body, visit_block, &w);
	astra_facts_release(&w.f);
	astra_buf_release(&w.detail);
	*edits = w.edits;
	*helpers |= w.helpers;
	return w.count;
}

const struct astra_rule astra_rule_warp_reduce = {
	.name = "warp-reduce",
	.summary = "warp-shuffle block reductions in place of shared-memory tree reductions",
	.stage = 30,
	.apply = apply,
};
