/*
 * r-blocksize.c - rule "block-size": a sweep over the block size of
 * kernels whose grid does not depend on it.
 *
 * Kernels that give each block a row (grid = rows) and spread the row
 * over blockDim.x threads compute the same thing with 128 or 1024 threads;
 * which is fastest depends on the row length and the registers per
 * thread.  The step `block-size=B` launches B threads per block (the
 * variant carries its launch).  It declines when the kernel indexes the
 * grid with blockIdx.x * blockDim.x (the grid would have to change), when
 * a shared array has fewer than B elements, or when the old block size
 * appears as a number in the kernel (it may encode the block size).
 *
 * `block-size=B1:B2` chooses per launch: B1 threads when the grid has at
 * least T blocks, B2 (more) when it has fewer, so that a row-wise kernel
 * keeps small blocks (registers, several blocks per SM) where rows are
 * many, and spreads a row over more threads where rows are few and long.
 * T lies between the grid of the shape with the most data and the next
 * smaller grid among the pragma's shapes (their geometric mean), so the
 * large shape and the smaller ones are measured on each side of it.
 * One variant then serves both, instead of a compromise between them.
 */
#include "autoconfig.h"

#include <ctype.h>

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"
#include "rules/rule.h"

static const int sizes[] = { 64, 128, 256, 512, 1024 };
/* Per-launch choices worth trying: small blocks for many rows, more threads for few. */
static const char *const dispatch[] = { "256:512", "256:1024" };

static void args(struct astra_rk *rk, struct astra_vec *out)
{
	long b = astra_rk_block_literal(rk);
	size_t i;
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		if (sizes[i] != b)
			astra_vec_pushf(out, "%d", sizes[i]);
	for (i = 0; i < ARRAY_SIZE(dispatch); i++)
		astra_vec_push(out, dispatch[i]);
}

static int valid_size(long b)
{
	return b >= 32 && b <= 1024 && b % 32 == 0;
}

/*
 * The grid size that separates the shape with the most data from the
 * next smaller grid among the shapes (their geometric mean, rounded up),
 * or -1 (why says why).
 */
static long long dispatch_threshold(struct astra_rk *rk, struct astra_buf *why)
{
	long long big = astra_rk_at_largest_shape(rk, rk->grid), below = 0, v, lo, t;
	size_t s;
	if (big <= 0) {
		astra_buf_adds(why, "the grid cannot be evaluated at the shapes");
		return -1;
	}
	for (s = 0; s < rk->k->pragma.nr_shapes; s++) {
		v = astra_rk_at_shape(rk, rk->grid, s);
		if (v < 0) {
			astra_buf_adds(why, "the grid cannot be evaluated at the shapes");
			return -1;
		}
		if (v < big && v > below)
			below = v;
	}
	if (!below) {
		astra_buf_adds(why, "no shape has fewer blocks than the shape with the most data");
		return -1;
	}
	/* the least t with t * t >= big * below, by bisection: lo fails, t holds */
	lo = below;
	t = big;
	while (t - lo > 1) {
		long long mid = lo + (t - lo) / 2;
		if ((double)mid * (double)mid >= (double)big * (double)below)
			t = mid;
		else
			lo = mid;
	}
	return t;
}

struct gtid_scan {
	struct astra_facts *f;
	int found;
};

static int gtid_expr(struct astra_expr *e, void *data)
{
	struct gtid_scan *g = data;
	enum astra_tix t = astra_facts_tix(g->f, e);
	if (t == TIX_GTID || t == TIX_GSTRIDE || t == TIX_GWARP ||
	    (e->kind == EX_MEMBER && e->a->kind == EX_IDENT && astra_syn_is(g->f->syn, e->a->t0, "gridDim")))
		g->found = 1;
	return g->found;
}

static int gtid_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e, void *data)
{
	(void)f;
	(void)s;
	(void)t0;
	(void)t1;
	if (!e)
		((struct gtid_scan *)data)->found = 1;
	else
		astra_expr_walk(e, gtid_expr, data);
	return ((struct gtid_scan *)data)->found;
}

/* Is token t inside the dimension of a shared array (checked on its own below)? */
static int in_shared_dim(const struct astra_facts *f, size_t t)
{
	size_t i;
	for (i = 0; i < f->nr_locals; i++)
		if (f->locals[i].is_shared && f->locals[i].d.is_array && t >= f->locals[i].d.dim0 && t < f->locals[i].d.dim1)
			return 1;
	return 0;
}

/* Is the shared array only ever used at index 0 (as warp-reduce leaves a tree's array)? */
static int only_first(const struct astra_syn *syn, const struct astra_local *l)
{
	size_t t;
	for (t = syn->body->t0; t < syn->body->t1; t++)
		if (t != l->d.name && astra_syn_is(syn, t, l->name) &&
		    !(astra_syn_is(syn, t + 1, "[") && astra_syn_is(syn, t + 2, "0") && astra_syn_is(syn, t + 3, "]")))
			return 0;
	return 1;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_facts f;
	struct gtid_scan g;
	long b0 = astra_rk_block_literal(rk), b1 = 0, b = 0;
	long long thr = 0;
	size_t i, t;
	char *old, *rest = NULL;
	int r = 0;

	if (arg) {
		b = strtol(arg, &rest, 10);
		if (*rest == ':') {
			b1 = b;
			b = strtol(rest + 1, &rest, 10);
		}
	}
	if (!arg || *rest || !valid_size(b) || (b1 && (!valid_size(b1) || b1 >= b))) {
		astra_buf_addf(why, "block size %s is not a multiple of 32 up to 1024 (or B1:B2 with B1 < B2)",
			       arg ? arg : "(none)");
		return 0;
	}
	if (!b0) {
		astra_buf_addf(why, "the block size (%s) is not an integer literal", rk->block ? rk->block : "not given");
		return 0;
	}
	if (b == b0 && !b1) {
		astra_buf_addf(why, "the block size is %ld already", b0);
		return 0;
	}
	if (!rk->grid || !astra_rk_params_only(rk, rk->grid)) {
		astra_buf_adds(why, "the grid is not an expression of the kernel's parameters");
		return 0;
	}
	if (astra_facts_build(&f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	g.f = &f;
	g.found = 0;
	astra_facts_each_part(&f, rk->syn.body, gtid_part, &g);
	if (g.found || astra_facts_mentions_grid(&f, rk->syn.body->t0, rk->syn.body->t1, 1)) {
		astra_buf_adds(why, "the kernel indexes the whole grid (blockIdx.x * blockDim.x, gridDim) or uses 2-D "
				    "blocks: its grid depends on the block size");
		goto out;
	}
	/*
	 * blockIdx.x * 8 (eight rows a block) or blockDim.x * blockIdx.x in
	 * two statements: the grid counts blocks of so many
	 */
	for (t = rk->syn.body->t0 + 3; t + 4 < rk->syn.body->t1; t++)
		if (astra_syn_is(&rk->syn, t, "blockIdx") && astra_syn_is(&rk->syn, t + 1, ".") &&
		    astra_syn_is(&rk->syn, t + 2, "x") &&
		    ((astra_syn_is(&rk->syn, t + 3, "*") && (rk->syn.toks[t + 4].kind == SYN_NUMBER ||
							      astra_syn_is(&rk->syn, t + 4, "blockDim"))) ||
		     (astra_syn_is(&rk->syn, t - 1, "*") &&
		      (rk->syn.toks[t - 2].kind == SYN_NUMBER || astra_syn_is(&rk->syn, t - 4, "blockDim"))))) {
			astra_buf_adds(why, "the kernel multiplies blockIdx.x (so many rows or elements a block): its grid "
					    "depends on the block size");
			goto out;
		}
	if (!isdigit((unsigned char)rk->block[strspn(rk->block, " \t")])) {
		/* block=BLOCK_SIZE, a macro: the kernel or its grid may name it too */
		char *name = xstrndup(rk->block + strspn(rk->block, " \t"),
				      strspn(rk->block + strspn(rk->block, " \t"),
					     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789"));
		int named = 0;
		struct astra_syn gs;
		for (t = rk->syn.body->t0; t < rk->syn.body->t1 && !named; t++)
			named = astra_syn_is(&rk->syn, t, name);
		if (!named && astra_syn_lex(&gs, rk->grid, strlen(rk->grid)) == 0) {
			for (t = 0; t < gs.nr_toks && !named; t++)
				named = astra_syn_is(&gs, t, name);
			astra_syn_release(&gs);
		}
		if (named) {
			astra_buf_addf(why, "the kernel or its grid names %s, the block size", name);
			free(name);
			goto out;
		}
		free(name);
	}
	old = xasprintf("%ld", b0);
	for (t = rk->syn.body->t0; t < rk->syn.body->t1; t++)
		if (astra_syn_is(&rk->syn, t, old) && !in_shared_dim(&f, t)) {
			astra_buf_addf(why, "the kernel mentions %s, perhaps the block size", old);
			free(old);
			goto out;
		}
	free(old);
	for (i = 0; i < f.nr_locals; i++) {
		const struct astra_local *l = &f.locals[i];
		char *dim, *end;
		long n;
		if (!l->is_shared || !l->d.is_array)
			continue;
		dim = astra_syn_text(&rk->syn, l->d.dim0, l->d.dim1);
		n = strtol(dim, &end, 0);
		if ((*end || n < b) && !only_first(&rk->syn, l)) {
			astra_buf_addf(why, "the shared array %s[%s] is sized for the block", l->name, dim);
			free(dim);
			goto out;
		}
		free(dim);
	}
	if (b1 && (thr = dispatch_threshold(rk, why)) < 0)
		goto out;
	{
		char *blk = b1 ? xasprintf("((%s) >= %lld ? %ld : %ld)", rk->grid, thr, b1, b)
			       : xasprintf("%ld", b);
		astra_rk_set_launch(rk, NULL, blk, NULL);
		free(blk);
		rk->block_large = b1;
		rk->block_max = b1 ? b : 0;
	}
	r = 1;
out:
	astra_facts_release(&f);
	return r;
}

const struct astra_rule astra_rule_block_size = {
	.name = "block-size",
	.summary = "a sweep over the block size (64..1024, or B1:B2 chosen per launch) of kernels whose grid does not "
		   "depend on it",
	.flags = RULE_SWEEP | RULE_GEOMETRY,
	.stage = 35,
	.args = args,
	.apply = apply,
};
