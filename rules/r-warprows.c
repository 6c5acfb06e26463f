/*
 * r-warprows.c - rule "warp-rows": a kernel that gives each row a block
 * (`grid=rows`, the row is blockIdx.x, loops `for (i = threadIdx.x; i < n;
 * i += blockDim.x)`, shared-memory tree reductions) gives each row a warp
 * instead, the block's warps taking consecutive rows.
 *
 * A residual add and a norm over a row of 768-4096 elements is one such
 * kernel: with a block of 256 per row and 16-byte accesses, a row of 768
 * half-precision values keeps 96 threads busy and the rest wait at every
 * barrier; a warp per row keeps all 32 lanes on loads, and its
 * reductions are shuffles (no shared memory, no block barrier).  That is
 * how the fused residual+norm kernels of serving stacks are written for
 * these sizes.  Rewrites: the row is blockIdx.x * warps + warp, the
 * thread index the lane, blockDim.x 32, __syncthreads() __syncwarp(); each
 * tree reduction a warp's shuffle reduction; each __shared__ variable one
 * copy per warp (an array of N, a slice of N of an array W times longer).  The launch: grid = (rows + warps - 1) / warps, the same
 * block.  Declines when the kernel assumes its block size anywhere else
 * (a literal 256 or 128 outside the trees and the shared arrays' sizes),
 * reads shared memory at another thread's index outside a tree, is
 * warp-aware already (shuffles, warpSize, lanes), or calls a helper of its
 * file that reads the thread or block index, synchronizes or shares memory
 * (the helper would keep the old meaning: a block reduction would mix the
 * block's rows).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "front/types.h"
#include "rules/facts.h"
#include "rules/helpers.h"
#include "rules/rule.h"
#include "rules/trees.h"

static int in_ranges(const struct astra_syn_edits *e, size_t off)
{
	size_t i;
	for (i = 0; i < e->nr; i++)
		if (off >= e->items[i].start && off < e->items[i].end)
			return 1;
	return 0;
}

static int is_member_x(const struct astra_syn *syn, size_t t, const char *base)
{
	return astra_syn_is(syn, t, base) && astra_syn_is(syn, t + 1, ".") && astra_syn_is(syn, t + 2, "x");
}

/* Is token t (threadIdx of threadIdx.x, or a local set to it) the start of `for (i = t; ...; i += blockDim.x)`? */
static int loop_start(struct astra_facts *f, size_t t, size_t len)
{
	const struct astra_syn *syn = f->syn;
	size_t i;
	for (i = 0; i < syn->nr_stmts; i++) {
		struct astra_stmt *s = syn->stmts[i];
		struct astra_decl *d = NULL;
		int ok = 0;
		if (s->kind != STMT_FOR || t < s->a0 || t >= s->a1)
			continue;
		if (astra_syn_decls(syn, s->a0, s->a1, &d) == 1 && d[0].init0 == t && d[0].init1 == t + len &&
		    s->c1 > s->c0 + 2 && astra_syn_is(syn, s->c0 + 1, "+=") &&
		    astra_facts_tix(f, astra_syn_expr(f->syn, s->c0 + 2, s->c1)) == TIX_BDIM)
			ok = 1;
		free(d);
		return ok;
	}
	return 0;
}

/*
 * Every use of the thread index is one a warp per row keeps the meaning
 * of: the start of a block-strided loop, a test against 0 (one thread
 * acts), a shared array's own element, a local set to it.  Returns the
 * first other use, or (size_t)-1.
 */
static size_t odd_tid_use(struct astra_facts *f, const struct astra_syn_edits *trees)
{
	const struct astra_syn *syn = f->syn;
	size_t t;
	for (t = syn->body->t0; t < syn->body->t1; t++) {
		size_t len;
		const struct astra_local *l;
		if (in_ranges(trees, syn->toks[t].off))
			continue;
		if (is_member_x(syn, t, "threadIdx"))
			len = 3;
		else if (syn->toks[t].kind == SYN_IDENT && !(t > 0 && astra_syn_is(syn, t - 1, ".")) &&
			 (l = astra_facts_local_tok(f, t)) && l->d.name != t && l->d.init1 > l->d.init0 &&
			 !l->assigned && l->nr_decls == 1 &&
			 astra_facts_tix(f, astra_syn_expr(f->syn, l->d.init0, l->d.init1)) == TIX_TID)
			len = 1;
		else
			continue;
		{
			size_t i;
			int ok = 0;
			/* a local set to it */
			for (i = 0; i < f->nr_locals && !ok; i++)
				ok = f->locals[i].d.init0 == t && f->locals[i].d.init1 == t + len && !f->locals[i].assigned &&
				     f->locals[i].nr_decls == 1;
			if (ok || loop_start(f, t, len) ||
			    (t >= 2 && (astra_syn_is(syn, t - 1, "==") || astra_syn_is(syn, t - 1, "!=")) &&
			     astra_syn_is(syn, t - 2, "0")) ||
			    ((astra_syn_is(syn, t + len, "==") || astra_syn_is(syn, t + len, "!=")) &&
			     astra_syn_is(syn, t + len + 1, "0")) ||
			    (t >= 2 && astra_syn_is(syn, t - 1, "[") && astra_syn_is(syn, t + len, "]") &&
			     (l = astra_facts_local_tok(f, t - 2)) != NULL && l->is_shared)) {
				t += len - 1;
				continue;
			}
		}
		return t;
	}
	return (size_t)-1;
}

struct gtid_scan {
	struct astra_facts *f;
	int found;
};

static int gtid_expr(struct astra_expr *e, void *data)
{
	struct gtid_scan *g = data;
	enum astra_tix x = astra_facts_tix(g->f, e);
	if (x == TIX_GTID || x == TIX_GSTRIDE || x == TIX_GWARP || x == TIX_LANE)
		g->found = 1;
	return g->found;
}

static int gtid_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e, void *data)
{
	(void)f;
	(void)s;
	(void)t0;
	(void)t1;
	if (e)
		astra_expr_walk(e, gtid_expr, data);
	return ((struct gtid_scan *)data)->found;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	static const char *const warp_aware[] = { "__shfl_sync", "__shfl_xor_sync", "__shfl_down_sync", "__shfl_up_sync",
						  "warpSize", "__syncwarp", "__ballot_sync", "__activemask", "gridDim",
						  "__any_sync", "__all_sync", NULL };
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_syn_edits e = { NULL, 0, 0 }, trees = { NULL, 0, 0 };
	unsigned helpers = 0;
	long blk = astra_rk_block_literal(rk), warps;
	size_t t, i;
	int ntrees, ret = 0, uses_row = 0;
	char *grid = NULL;
	(void)arg;

	if (blk < 64 || blk > 1024 || blk % 32) {
		astra_buf_addf(why, "the block size (%s) is not a literal multiple of 32 of at least 64",
			       rk->block ? rk->block : "not given");
		return 0;
	}
	warps = blk / 32;
	if (!rk->grid || strstr(rk->grid, "dim3") || !astra_rk_params_only(rk, rk->grid) || rk->own_geometry) {
		astra_buf_addf(why, "the grid (%s) is not a row count of the kernel's parameters", rk->grid ? rk->grid : "not given");
		return 0;
	}
	if (strstr(rk->text, "astra_" ASTRA_SFX "_")) {
		astra_buf_adds(why, "an earlier rule's block reductions are in the text");
		return 0;
	}
	if (astra_facts_build(&f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	syn = &rk->syn;
	if (astra_facts_mentions_grid(&f, syn->body->t0, syn->body->t1, 1)) {
		astra_buf_adds(why, "the kernel uses a 2-D or 3-D thread index");
		goto out;
	}
	for (t = syn->body->t0; t < syn->body->t1; t++) {
		const char *const *w;
		for (w = warp_aware; *w; w++)
			if (astra_syn_is(syn, t, *w)) {
				astra_buf_addf(why, "the kernel uses %s: it is not written for a block per row", *w);
				goto out;
			}
		if (astra_syn_is(syn, t, "extern") && astra_syn_is(syn, t + 1, "__shared__")) {
			astra_buf_adds(why, "the kernel uses dynamic shared memory");
			goto out;
		}
		if (is_member_x(syn, t, "blockIdx"))
			uses_row = 1;
	}
	if (!uses_row) {
		astra_buf_adds(why, "the kernel does not index rows by blockIdx.x");
		goto out;
	}
	{
		/* A helper of the file that reads the geometry or works across the block keeps its old meaning. */
		static const char *const geometry[] = { "threadIdx", "blockIdx", "blockDim", "gridDim", "__syncthreads",
							"__shared__", "warpSize", "__syncwarp", "__shfl_sync",
							"__shfl_xor_sync", "__shfl_down_sync", "__shfl_up_sync",
							"__ballot_sync", "__activemask", "__any_sync", "__all_sync", NULL };
		const char *w, *dep = astra_rk_dep_naming(rk, geometry, &w);
		if (dep) {
			astra_buf_addf(why, "the kernel uses %s, which uses %s: a warp per row would not rewrite it", dep, w);
			goto out;
		}
	}
	{
		struct gtid_scan g = { &f, 0 };
		astra_facts_each_part(&f, syn->body, gtid_part, &g);
		if (g.found) {
			astra_buf_adds(why, "the kernel indexes the whole grid or lanes (blockIdx.x * blockDim.x + "
					    "threadIdx.x, lane indices): it does not give each row a block");
			goto out;
		}
	}
	{
		/* the shared memory, one copy per warp, must fit the 48 KB a static allocation may take */
		long long bytes = 0;
		for (i = 0; i < f.nr_locals; i++) {
			const struct astra_local *l = &f.locals[i];
			char *ty;
			long long n = 1;
			int size;
			if (!l->is_shared)
				continue;
			ty = astra_syn_text(syn, l->d.ty0, l->d.ty1);
			size = astra_type_size(&rk->k->env, ty);
			free(ty);
			if (l->d.is_array && astra_facts_const_int(&f, astra_syn_expr(syn, l->d.dim0, l->d.dim1), &n) < 0)
				n = -1;
			if (size <= 0 || n < 0) {
				astra_buf_addf(why, "the size of the shared variable %s is unknown", l->name);
				goto out;
			}
			bytes += n * size * warps;
		}
		if (bytes > 48 * 1024) {
			astra_buf_addf(why, "a copy of the shared memory per warp would take %lld bytes", bytes);
			goto out;
		}
	}
	ntrees = astra_trees_warp_rows(rk, &trees, &helpers);
	if (ntrees < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		goto out;
	}
	if ((t = odd_tid_use(&f, &trees)) != (size_t)-1) {
		char *at = astra_syn_text(syn, t, t + 6 < syn->nr_toks ? t + 6 : t + 1);
		astra_buf_addf(why, "the thread index is used otherwise than to start a block-strided loop, to pick "
				    "one thread or a shared array's element (`%s`...)", at);
		free(at);
		goto out;
	}
	for (t = syn->body->t0; t < syn->body->t1; t++) {
		size_t off = syn->toks[t].off;
		const struct astra_local *l;
		if (in_ranges(&trees, off))
			continue;
		/* the block size assumed: a literal equal to it or its half, outside the shared arrays' sizes */
		if (syn->toks[t].kind == SYN_NUMBER) {
			char *n = astra_syn_tokstr(syn, t), *end;
			long v = strtol(n, &end, 0);
			int in_shared_decl = 0;
			free(n);
			for (i = 0; i < f.nr_locals; i++)
				if (f.locals[i].is_shared && t >= f.locals[i].d.dim0 && t < f.locals[i].d.dim1)
					in_shared_decl = 1;
			if (!in_shared_decl && (v == blk || v == blk / 2)) {
				astra_buf_addf(why, "the kernel assumes %ld threads (the literal %ld)", blk, v);
				goto out;
			}
			continue;
		}
		if (is_member_x(syn, t, "blockIdx")) {
			astra_syn_edit(&e, off, astra_syn_end(syn, t + 2), "astra_row");
			t += 2;
			continue;
		}
		if (is_member_x(syn, t, "threadIdx")) {
			astra_syn_edit(&e, off, astra_syn_end(syn, t + 2), "astra_lane");
			t += 2;
			continue;
		}
		if (is_member_x(syn, t, "blockDim")) {
			astra_syn_edit(&e, off, astra_syn_end(syn, t + 2), "32");
			t += 2;
			continue;
		}
		if (astra_syn_is(syn, t, "__syncthreads")) {
			astra_syn_edit(&e, off, astra_syn_end(syn, t), "__syncwarp");
			continue;
		}
		l = syn->toks[t].kind == SYN_IDENT && !(t > 0 && (astra_syn_is(syn, t - 1, ".") || astra_syn_is(syn, t - 1, "->")))
			    ? astra_facts_local_tok(&f, t) : NULL;
		if (!l || !l->is_shared)
			continue;
		if (l->nr_decls != 1) {
			astra_buf_addf(why, "the shared variable %s is declared twice", l->name);
			goto out;
		}
		if (t == l->d.name) {
			/* one copy per warp: name[N] -> name[W * (N)], a scalar name[W] */
			if (l->d.is_array) {
				char *dim = astra_syn_text(syn, l->d.dim0, l->d.dim1);
				astra_syn_edit_owned(&e, astra_syn_off(syn, l->d.dim0), astra_syn_end(syn, l->d.dim1 - 1),
						      xasprintf("%ld * (%s)", warps, dim));
				free(dim);
				t = l->d.dim1 - 1;
			} else {
				astra_syn_edit_owned(&e, astra_syn_end(syn, t), astra_syn_end(syn, t), xasprintf("[%ld]", warps));
			}
			continue;
		}
		if (l->d.is_array) {
			/* outside a tree: only at the thread's own index, or element 0 */
			struct astra_expr *ix;
			size_t close = astra_syn_match(syn, t + 1);
			long long z;
			if (!astra_syn_is(syn, t + 1, "[") || close == (size_t)-1 ||
			    !(ix = astra_syn_expr(syn, t + 2, close)) ||
			    !(astra_facts_tix(&f, ix) == TIX_TID ||
			      (astra_facts_const_int(&f, ix, &z) == 0 && z == 0))) {
				astra_buf_addf(why, "the shared array %s is read or written at another thread's index", l->name);
				goto out;
			}
			{
				/* name[E] -> name[astra_w * (N) + (E)] */
				char *dim = astra_syn_text(syn, l->d.dim0, l->d.dim1), *ixt = astra_syn_text(syn, t + 2, close);
				astra_syn_edit_owned(&e, off, astra_syn_end(syn, close),
						      xasprintf("%s[astra_w * (%s) + (%s)]", l->name, dim, ixt));
				free(dim);
				free(ixt);
				t = close;
				continue;
			}
		}
		astra_syn_edit_owned(&e, off, astra_syn_end(syn, t), xasprintf("%s[astra_w]", l->name));
	}
	/* the warp's row, ahead of everything */
	astra_syn_edit_owned(&e, astra_syn_end(syn, syn->body->t0), astra_syn_end(syn, syn->body->t0),
			      xasprintf("\n\t/* astra-cc rules: a warp per row, %ld rows per block */\n"
					"\tconst int astra_w = threadIdx.x >> 5;\n"
					"\tconst int astra_lane = threadIdx.x & 31;\n"
					"\tconst int astra_row = blockIdx.x * %ld + astra_w;\n"
					"\tif (astra_row >= (%s))\n"
					"\t\treturn;", warps, warps, rk->grid));
	for (i = 0; i < trees.nr; i++)
		astra_syn_edit_owned(&e, trees.items[i].start, trees.items[i].end, xstrdup(trees.items[i].text));
	if (astra_rk_edit(rk, &e) < 0) {
		ret = -1;
		goto out;
	}
	grid = xasprintf("((%s) + %ld) / %ld", rk->grid, warps - 1, warps);
	astra_rk_set_launch(rk, grid, NULL, NULL);
	rk->helpers |= helpers;
	ret = 1;
out:
	free(grid);
	astra_syn_edits_release(&e);
	astra_syn_edits_release(&trees);
	astra_facts_release(&f);
	return ret;
}

const struct astra_rule astra_rule_warp_rows = {
	.name = "warp-rows",
	.summary = "block-per-row kernel -> a warp per row (the block's warps take consecutive rows), shuffle reductions",
	.flags = RULE_GEOMETRY | RULE_VARIANT,
	.stage = 10,
	.excludes = "block-per-row,warp-per-row,row-split",
	.apply = apply,
};
