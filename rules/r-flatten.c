/*
 * r-flatten.c - rule "flatten": an element-wise kernel written over a 2-D
 * grid (x the column, y the row, as for a matrix) becomes the same kernel
 * over a 1-D grid of rows * cols threads, the shape the element-wise
 * rules (elems-per-thread, grid-stride, vectorize) read.
 *
 * The shape it reads (names free, the two indices in either order):
 *
 *   int col = blockIdx.x * blockDim.x + threadIdx.x;
 *   int row = blockIdx.y * blockDim.y + threadIdx.y;
 *   if (row >= R || col >= C) return;     (the canonical form of
 *                                          `if (row < R && col < C) { ... }`)
 *   ...code that uses no thread or block index, no barrier...
 *
 * It becomes
 *
 *   int astra_e = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (astra_e >= R * C) return;
 *   int row = astra_e / C;
 *   int col = astra_e % C;
 *   ...
 *
 * launched with grid=(R * C + 255) / 256, block=256: thread e does what
 * thread (e % C, e / C) of the 2-D grid did, for every (row, col) the
 * guard lets through; the threads a 2-D grid launches beyond the guard do
 * nothing in either.  Consecutive threads take consecutive columns, as a
 * warp of the 2-D block did, and a row of a matrix is no longer cut into
 * blocks of blockDim.x columns (32 in a 32 x 8 block): elems-per-thread
 * then gives each thread a chunk of 16 bytes of a row (`row * C + col`
 * is the element index), which a 2-D block cannot.
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"
#include "rules/rule.h"

/* `v >= B` (or `B <= v`) for a local v: v's token and B's expression. */
static int bound_of(const struct astra_syn *syn, const struct astra_expr *c, size_t *v, const struct astra_expr **b)
{
	while (c && c->kind == EX_PAREN)
		c = c->a;
	if (!c || c->kind != EX_BINARY || !c->a || !c->b)
		return -1;
	if (astra_syn_is(syn, c->op, ">=") && c->a->kind == EX_IDENT && c->a->t1 == c->a->t0 + 1) {
		*v = c->a->t0;
		*b = c->b;
		return 0;
	}
	if (astra_syn_is(syn, c->op, "<=") && c->b->kind == EX_IDENT && c->b->t1 == c->b->t0 + 1) {
		*v = c->b->t0;
		*b = c->a;
		return 0;
	}
	return -1;
}

/* text as an operand: a name or a number as is, anything else in parentheses */
static char *operand(const char *text)
{
	size_t n = strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
	return text[n] ? xasprintf("(%s)", text) : xstrdup(text);
}

static int is_return(const struct astra_stmt *s)
{
	return s->kind == STMT_RETURN ||
	       (s->kind == STMT_BLOCK && s->nr_kids == 1 && s->kids[0]->kind == STMT_RETURN);
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	static const char *const banned[] = { "threadIdx", "blockIdx", "blockDim", "gridDim", "__syncthreads",
					      "__syncwarp", "__shared__", "warpSize", NULL };
	struct astra_facts f;
	struct astra_syn *syn;
	struct astra_stmt *body, *g;
	struct astra_syn_edits e = { NULL, 0, 0 };
	const struct astra_local *col = NULL, *row = NULL;
	const struct astra_expr *cond, *b1, *b2, *rb, *cb;
	size_t i, t, v1, v2;
	char *R = NULL, *C = NULL, *Rp = NULL, *Cp = NULL, *ty = NULL, *rowty = NULL, *coltext = NULL;
	int r = 0;
	(void)arg;

	if (astra_facts_build(&f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	syn = &rk->syn;
	body = syn->body;
	for (i = 0; i < 2 && i < body->nr_kids; i++) {
		struct astra_stmt *s = body->kids[i];
		struct astra_decl *d = NULL;
		if (s->kind == STMT_DECL && astra_syn_decls(syn, s->a0, s->a1, &d) == 1 && d[0].init1 > d[0].init0 &&
		    !d[0].is_array && d[0].ptr1 <= d[0].ptr0) {
			const struct astra_expr *x = astra_syn_expr(syn, d[0].init0, d[0].init1);
			if (astra_facts_tix(&f, x) == TIX_GTID && !col)
				col = astra_facts_local_tok(&f, d[0].name);
			else if (astra_facts_tix_y(&f, x) == TIX_GTID && !row)
				row = astra_facts_local_tok(&f, d[0].name);
		}
		free(d);
	}
	if (!col || !row || col->assigned || row->assigned || col->nr_decls != 1 || row->nr_decls != 1) {
		astra_buf_adds(why, "no `col = blockIdx.x * blockDim.x + threadIdx.x; row = blockIdx.y * blockDim.y + "
				    "threadIdx.y;` (a 2-D element index) set once at the top of the kernel");
		goto out;
	}
	if (body->nr_kids < 3 || (g = body->kids[2])->kind != STMT_IF || g->nr_kids != 1 || !is_return(g->kids[0]) ||
	    !(cond = astra_syn_expr(syn, g->a0, g->a1)) || cond->kind != EX_BINARY ||
	    !astra_syn_is(syn, cond->op, "||") || bound_of(syn, cond->a, &v1, &b1) < 0 ||
	    bound_of(syn, cond->b, &v2, &b2) < 0) {
		astra_buf_addf(why, "no `if (%s >= rows || %s >= cols) return;` after the 2-D index", row->name, col->name);
		goto out;
	}
	if (astra_syn_is(syn, v1, row->name) && astra_syn_is(syn, v2, col->name)) {
		rb = b1;
		cb = b2;
	} else if (astra_syn_is(syn, v1, col->name) && astra_syn_is(syn, v2, row->name)) {
		rb = b2;
		cb = b1;
	} else {
		astra_buf_addf(why, "the bounds check does not bound %s and %s", row->name, col->name);
		goto out;
	}
	for (i = 3; i < body->nr_kids; i++)
		for (t = body->kids[i]->t0; t < body->kids[i]->t1; t++) {
			const char *const *w;
			for (w = banned; *w; w++)
				if (astra_syn_is(syn, t, *w) || (syn->toks[t].len > 6 &&
								 !memcmp(syn->text + syn->toks[t].off, "__shfl", 6))) {
					char *s = astra_syn_tokstr(syn, t);
					astra_buf_addf(why, "the element's code uses %s", s);
					free(s);
					goto out;
				}
		}
	if (astra_facts_local(&f, "astra_e", 7)) {
		astra_buf_adds(why, "the kernel has a local astra_e already");
		goto out;
	}
	R = astra_syn_text(syn, rb->t0, rb->t1);
	C = astra_syn_text(syn, cb->t0, cb->t1);
	Rp = astra_facts_to_params(&f, R);
	Cp = astra_facts_to_params(&f, C);
	if (!Rp || !Cp || !astra_rk_params_only(rk, Rp) || !astra_rk_params_only(rk, Cp) ||
	    astra_syn_mentions(syn, rb->t0, rb->t1, row->name) || astra_syn_mentions(syn, cb->t0, cb->t1, col->name)) {
		astra_buf_addf(why, "the bounds (%s, %s) are not expressions of the parameters", R, C);
		goto out;
	}
	{
		char *rop = operand(R), *cop = operand(C), *grid, *rpo = operand(Rp), *cpo = operand(Cp);
		ty = astra_syn_text(syn, col->d.ty0, col->d.ty1);
		rowty = astra_syn_text(syn, row->d.ty0, row->d.ty1);
		astra_syn_edit_owned(&e, astra_syn_off(syn, body->kids[0]->t0), astra_syn_end(syn, g->t1 - 1),
				      xasprintf("%s astra_e = blockIdx.x * blockDim.x + threadIdx.x;\n"
						"\tif (astra_e >= %s * %s)\n\t\treturn;\n"
						"\t%s %s = astra_e / %s;\n\t%s %s = astra_e %% %s;",
						strstr(ty, "const") ? "int" : ty, rop, cop, rowty, row->name, cop, ty,
						col->name, cop));
		grid = xasprintf("(%s * %s + 255) / 256", rpo, cpo);
		free(rop);
		free(cop);
		free(rpo);
		free(cpo);
		if (astra_rk_edit(rk, &e) < 0) {
			free(grid);
			r = -1;
			goto out;
		}
		astra_rk_set_launch(rk, grid, "256", NULL);
		free(grid);
	}
	r = 1;
out:
	astra_syn_edits_release(&e);
	free(R);
	free(C);
	free(Rp);
	free(Cp);
	free(ty);
	free(rowty);
	free(coltext);
	astra_facts_release(&f);
	return r;
}

const struct astra_rule astra_rule_flatten = {
	.name = "flatten",
	.summary = "element-wise kernel over a 2-D grid (x the column, y the row) -> a 1-D grid over rows * cols",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	/* a 2-D transpose is transpose-tile's: flattened, it is an alternative */
	.excludes = "transpose-tile",
	.apply = apply,
};
