/*
 * r-gridstride.c - rule "grid-stride": a one-element-per-thread kernel
 * (`i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; ...`)
 * becomes a grid-stride loop over the elements, launched with at most
 * 8 blocks per SM (132 SMs on sm_90; 1024 blocks elsewhere).
 *
 * Fewer, longer-lived blocks amortize block start-up and index math, and
 * the loop is the shape "vectorize" turns into chunked vector accesses.
 * The variant carries its launch: grid = min((n + B - 1) / B, cap).
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"
#include "rules/rule.h"

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_facts f;
	struct astra_stmt *body, *g;
	const struct astra_local *v = NULL;
	struct astra_syn_edits e = { NULL, 0, 0 };
	size_t i, gi = 0;
	char *n = NULL, *np = NULL, *ty = NULL, *init = NULL, *ind;
	int r = 0, cap = rk->cc == 90 ? 8 * 132 : 1024;
	(void)arg;

	if (astra_facts_build(&f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	body = rk->syn.body;
	for (i = 0; i < body->nr_kids && !v; i++) {
		struct astra_stmt *s = body->kids[i];
		struct astra_decl *d = NULL;
		if (s->kind == STMT_DECL && astra_syn_decls(&rk->syn, s->a0, s->a1, &d) == 1 && d[0].init1 > d[0].init0 &&
		    astra_facts_tix(&f, astra_syn_expr(&rk->syn, d[0].init0, d[0].init1)) == TIX_GTID) {
			v = astra_facts_local_tok(&f, d[0].name);
			gi = i + 1;
		}
		free(d);
	}
	if (!v || v->assigned || v->nr_decls != 1 || gi >= body->nr_kids) {
		astra_buf_adds(why, "no `i = blockIdx.x * blockDim.x + threadIdx.x` set once at the top of the kernel");
		goto out;
	}
	/* declarations that do not use the index may stand between it and the bounds check */
	while (gi + 1 < body->nr_kids && body->kids[gi]->kind == STMT_DECL &&
	       !astra_syn_mentions(&rk->syn, body->kids[gi]->t0, body->kids[gi]->t1, v->name))
		gi++;
	g = body->kids[gi];
	if (g->kind != STMT_IF || g->nr_kids != 1 || g->a1 < g->a0 + 3 || !astra_syn_is(&rk->syn, g->a0, v->name) ||
	    !astra_syn_is(&rk->syn, g->a0 + 1, ">=") ||
	    !(g->kids[0]->kind == STMT_RETURN ||
	      (g->kids[0]->kind == STMT_BLOCK && g->kids[0]->nr_kids == 1 && g->kids[0]->kids[0]->kind == STMT_RETURN))) {
		astra_buf_addf(why, "no `if (%s >= n) return;` right after the index", v->name);
		goto out;
	}
	for (i = gi + 1; i < body->nr_kids; i++) {
		size_t t;
		for (t = body->kids[i]->t0; t < body->kids[i]->t1; t++)
			if (astra_syn_is(&rk->syn, t, "return") || astra_syn_is(&rk->syn, t, "__syncthreads") ||
			    astra_syn_is(&rk->syn, t, "__shared__") || astra_syn_is(&rk->syn, t, "threadIdx") ||
			    astra_syn_is(&rk->syn, t, "blockIdx") || astra_syn_is(&rk->syn, t, "break")) {
				char *w = astra_syn_tokstr(&rk->syn, t);
				astra_buf_addf(why, "the rest of the kernel uses %s", w);
				free(w);
				goto out;
			}
	}
	if (astra_facts_mentions_grid(&f, body->t0, body->t1, 1)) {
		astra_buf_adds(why, "the kernel uses a 2-D or 3-D thread index");
		goto out;
	}
	n = astra_syn_text(&rk->syn, g->a0 + 2, g->a1);
	np = astra_facts_to_params(&f, n);
	if (!np || !astra_rk_params_only(rk, np) || !rk->block || !astra_rk_params_only(rk, rk->block)) {
		astra_buf_addf(why, "the element count (%s) or the block size is not an expression of the parameters", n);
		goto out;
	}
	ty = astra_syn_text(&rk->syn, v->d.ty0, v->d.ty1);
	init = astra_syn_text(&rk->syn, v->d.init0, v->d.init1);
	{
		struct astra_stmt *first = body->kids[gi + 1 < body->nr_kids ? gi + 1 : gi];
		size_t from = astra_syn_off(&rk->syn, v->stmt->t0);
		size_t to = astra_syn_end(&rk->syn, body->kids[body->nr_kids - 1]->t1 - 1), o;
		ind = xstrdup("\t");
		(void)first;
		/* for (T i = gtid; i < n; i += blockDim.x * gridDim.x) { rest } */
		if (v->stmt != body->kids[gi - 1]) {
			/* the declarations between stay in front of the loop */
			astra_edit_delete(rk->text, from, astra_syn_end(&rk->syn, v->stmt->t1 - 1), &e);
			from = astra_syn_off(&rk->syn, g->t0);
		}
		astra_syn_edit_owned(&e, from, astra_syn_end(&rk->syn, g->t1 - 1),
				      xasprintf("for (%s %s = %s; %s < (%s); %s += blockDim.x * gridDim.x) {", strstr(ty, "const") ?
						"int" : ty, v->name, init, v->name, n, v->name));
		for (o = astra_syn_end(&rk->syn, g->t1 - 1); o < to; o++)
			if (rk->text[o] == '\n' && rk->text[o + 1] != '\n')
				astra_syn_edit(&e, o + 1, o + 1, "\t");
		astra_syn_edit_owned(&e, to, to, xasprintf("\n%s}", ind));
		free(ind);
	}
	if (astra_rk_edit(rk, &e) < 0) {
		r = -1;
		goto out;
	}
	{
		char *grid = xasprintf("min(((%s) + (%s) - 1) / (%s), %d)", np, rk->block, rk->block, cap);
		astra_rk_set_launch(rk, grid, NULL, NULL);
		free(grid);
	}
	r = 1;
out:
	astra_syn_edits_release(&e);
	free(n);
	free(np);
	free(ty);
	free(init);
	astra_facts_release(&f);
	return r;
}

const struct astra_rule astra_rule_grid_stride = {
	.name = "grid-stride",
	.summary = "element-per-thread kernel -> grid-stride loop with a capped grid (then vectorizable)",
	.flags = RULE_GEOMETRY,
	.stage = 20,
	.excludes = "elems-per-thread,transpose-tile",
	.apply = apply,
};
