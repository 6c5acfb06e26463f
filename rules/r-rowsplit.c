/*
 * r-rowsplit.c - rule "row-split": a thread-per-row kernel whose column
 * loops are independent (a gather, an embedding, an encoder's sum of
 * two tables) becomes a thread per (row, column): the inner dimension is
 * spread over the grid instead of walked by one thread.
 *
 * The shape it reads (names free):
 *
 *   int row = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (row >= R) return;
 *   ...row-level code: declarations, ifs, returns...
 *   for (int j = 0; j < N; j++) BODY          (one or more such loops, same N)
 *
 * where no iteration of a column loop depends on another (no variable of
 * the row is updated, and a buffer written in the loops is read and
 * written at the same column only), and the row-level code stores
 * nothing.  It becomes
 *
 *   int e = blockIdx.x * blockDim.x + threadIdx.x;
 *   if (e >= R * N) return;
 *   int row = e / N;  const int c = e % N;
 *   ...row-level code...
 *   { const int j = c; BODY }                  (each column loop)
 *
 * launched over R * N threads.  Every thread computes its row's values
 * (cheap, and cached: the threads of a row read the same addresses), and
 * the memory accesses of a warp become consecutive.  elems-per-thread then
 * gives each thread a chunk of columns with vector loads and stores:
 * a thread per (row, column chunk), which is how an embedding or an
 * encoder is written by hand.  An alternative to block-per-row and
 * warp-per-row, which keep a row in one block or warp.
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"
#include "rules/rule.h"

#define NONE ((size_t)-1)

struct rs {
	struct astra_rk *rk;
	struct astra_facts f;
	struct astra_syn *syn;
	char *n;                    /* the column loops' bound, normalized */
	size_t n0, n1;              /* its tokens, in the first loop */
	struct astra_stmt **loops;
	size_t nr_loops, alloc_loops;
	struct astra_vec wbases;    /* buffers the loops write */
	struct astra_vec wkeys;     /* "base[index]" with the loop variable as @ */
	const char *why;
};

static char *squeezed(const struct astra_syn *syn, size_t t0, size_t t1)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t t;
	for (t = t0; t < t1; t++) {
		if (b.len && syn->toks[t].kind == SYN_IDENT && syn->toks[t - 1].kind == SYN_IDENT)
			astra_buf_addch(&b, ' ');
		astra_buf_add(&b, syn->text + syn->toks[t].off, syn->toks[t].len);
	}
	return astra_buf_detach(&b, NULL);
}

/* `for (T j = 0; j < N; j++)` (or ++j, j += 1): j's name, or NULL. */
static char *column_loop(struct rs *r, struct astra_stmt *s)
{
	const struct astra_syn *syn = r->syn;
	struct astra_decl *d = NULL;
	long long z;
	char *j;
	if (s->kind != STMT_FOR || !astra_syn_looks_like_decl(syn, s->a0, s->a1) ||
	    astra_syn_decls(syn, s->a0, s->a1, &d) != 1 || d[0].init1 <= d[0].init0 ||
	    astra_facts_const_int(&r->f, astra_syn_expr(r->syn, d[0].init0, d[0].init1), &z) < 0 || z != 0) {
		free(d);
		return NULL;
	}
	j = astra_syn_tokstr(syn, d[0].name);
	free(d);
	if (!(s->b1 > s->b0 + 2 && astra_syn_is(syn, s->b0, j) && astra_syn_is(syn, s->b0 + 1, "<") &&
	      !astra_syn_mentions(syn, s->b0 + 2, s->b1, j)) ||
	    !((s->c1 == s->c0 + 2 && ((astra_syn_is(syn, s->c0, j) && astra_syn_is(syn, s->c0 + 1, "++")) ||
				      (astra_syn_is(syn, s->c0, "++") && astra_syn_is(syn, s->c0 + 1, j)))) ||
	      (s->c1 == s->c0 + 3 && astra_syn_is(syn, s->c0, j) && astra_syn_is(syn, s->c0 + 1, "+=") &&
	       astra_syn_is(syn, s->c0 + 2, "1")))) {
		free(j);
		return NULL;
	}
	return j;
}

/* Statements a column loop's body may not have: jumps out, barriers, effects on other threads. */
static int bad_tokens(const struct astra_syn *syn, size_t t0, size_t t1)
{
	static const char *const words[] = { "return", "break", "continue", "goto", "__syncthreads", "__syncwarp",
					     "asm", "threadIdx", "blockIdx", "__shared__", NULL };
	size_t t;
	for (t = t0; t < t1; t++) {
		const char *const *w;
		for (w = words; *w; w++)
			if (astra_syn_is(syn, t, *w))
				return 1;
		if (syn->toks[t].kind == SYN_IDENT && (!strncmp(syn->text + syn->toks[t].off, "__shfl", 6) ||
							!strncmp(syn->text + syn->toks[t].off, "atomic", 6)))
			return 1;
	}
	return 0;
}

/* "base[index]" of an access, the loop variable written @. */
static char *key_of(const struct astra_syn *syn, const struct astra_expr *ix, const char *j)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t t;
	for (t = ix->t0; t < ix->t1; t++) {
		if (astra_syn_is(syn, t, j))
			astra_buf_addch(&b, '@');
		else
			astra_buf_add(&b, syn->text + syn->toks[t].off, syn->toks[t].len);
	}
	return astra_buf_detach(&b, NULL);
}

struct scan {
	struct rs *r;
	const char *j;            /* the loop variable, or NULL at row level */
	struct astra_stmt *loop;
	int pass;                 /* 0: collect writes; 1: check every access */
	int bad;
};

static int scan_expr(struct astra_expr *e, void *data)
{
	struct scan *sc = data;
	struct rs *r = sc->r;
	const struct astra_syn *syn = r->syn;
	struct astra_expr *lhs = NULL;
	if (e->kind == EX_ASSIGN || e->kind == EX_POSTFIX ||
	    (e->kind == EX_UNARY && (astra_syn_is(syn, e->op, "++") || astra_syn_is(syn, e->op, "--"))))
		lhs = e->a;
	while (lhs && lhs->kind == EX_PAREN)
		lhs = lhs->a;
	if (lhs) {
		if (lhs->kind == EX_IDENT) {
			/* a local: it must be declared inside the loop (or, at row level, be the row's own) */
			const struct astra_local *l = astra_facts_local_tok(&r->f, lhs->t0);
			if (!l || (sc->loop && (l->d.name < sc->loop->t0 || l->d.name >= sc->loop->t1)) ||
			    (sc->j && astra_syn_is(syn, lhs->t0, sc->j)))
				sc->bad = 1;
		} else if (lhs->kind == EX_INDEX && lhs->a->kind == EX_IDENT && sc->j) {
			const struct astra_local *l = astra_facts_local_tok(&r->f, lhs->a->t0);
			if (l && l->d.is_array && sc->loop && l->d.name >= sc->loop->t0 && l->d.name < sc->loop->t1)
				return 0; /* a local array of the iteration */
			if (sc->pass == 0) {
				char *base = astra_syn_tokstr(syn, lhs->a->t0);
				if (astra_vec_find(&r->wbases, base) < 0)
					astra_vec_push(&r->wbases, base);
				astra_vec_push_owned(&r->wkeys, key_of(syn, lhs, sc->j));
				free(base);
			}
		} else {
			sc->bad = 1; /* a store at row level, or through something else */
		}
	}
	if (sc->pass == 1 && e->kind == EX_INDEX && e->a->kind == EX_IDENT) {
		char *base = astra_syn_tokstr(syn, e->a->t0);
		if (astra_vec_find(&r->wbases, base) >= 0) {
			/* a buffer the loops write: only at the column written */
			char *k = sc->j ? key_of(syn, e, sc->j) : NULL;
			if (!k || astra_vec_find(&r->wkeys, k) < 0)
				sc->bad = 1;
			free(k);
		}
		free(base);
	}
	if (e->kind == EX_CALL && e->a->kind == EX_IDENT) {
		size_t k;
		/* a pointer passed to a call: effects unknown */
		for (k = 0; k < e->nr_args; k++) {
			const struct astra_expr *a = e->args[k];
			while (a->kind == EX_PAREN || a->kind == EX_CAST)
				a = a->a;
			if (a->kind == EX_UNARY && astra_syn_is(syn, a->op, "&") && !astra_syn_is(syn, e->a->t0, "__ldg"))
				sc->bad = 1;
		}
	}
	return 0;
}

static int scan_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e,
		     void *data)
{
	struct scan *sc = data;
	(void)f;
	(void)s;
	(void)t0;
	(void)t1;
	if (!e) {
		sc->bad = 1;
		return 1;
	}
	astra_expr_walk(e, scan_expr, sc);
	return 0;
}

/*
 * Row-level statements: declarations, ifs and blocks of such, returns,
 * assignments of the row's locals, and column loops.  Returns 0, or -1
 * with r->why set.
 */
static int row_level(struct rs *r, struct astra_stmt *s, int pass)
{
	const struct astra_syn *syn = r->syn;
	struct scan sc;
	size_t i;
	char *j;
	memset(&sc, 0, sizeof(sc));
	sc.r = r;
	sc.pass = pass;
	switch (s->kind) {
	case STMT_BLOCK:
		for (i = 0; i < s->nr_kids; i++)
			if (row_level(r, s->kids[i], pass) < 0)
				return -1;
		return 0;
	case STMT_RETURN:
	case STMT_EMPTY:
		return 0;
	case STMT_IF:
		if (bad_tokens(syn, s->a0, s->a1)) {
			r->why = "a condition of the row reads the thread index";
			return -1;
		}
		/* the condition: no effects */
		{
			size_t saved = s->nr_kids;
			s->nr_kids = 0;
			astra_facts_each_part(&r->f, s, scan_part, &sc);
			s->nr_kids = saved;
		}
		if (sc.bad) {
			r->why = "a condition of the row has an effect";
			return -1;
		}
		for (i = 0; i < s->nr_kids; i++)
			if (row_level(r, s->kids[i], pass) < 0)
				return -1;
		return 0;
	case STMT_DECL:
	case STMT_EXPR:
		if (bad_tokens(syn, s->t0, s->t1)) {
			r->why = "the row's code reads the thread index or synchronizes";
			return -1;
		}
		astra_facts_each_part(&r->f, s, scan_part, &sc);
		if (sc.bad) {
			r->why = "the row's code (outside the column loops) stores to memory or reads what the loops write";
			return -1;
		}
		return 0;
	case STMT_FOR:
		j = column_loop(r, s);
		if (!j) {
			r->why = "a loop of the row is not `for (j = 0; j < N; j++)`";
			return -1;
		}
		{
			char *n = squeezed(syn, s->b0 + 2, s->b1);
			if (!r->n) {
				r->n = n;
				r->n0 = s->b0 + 2;
				r->n1 = s->b1;
			} else if (strcmp(r->n, n)) {
				free(n);
				free(j);
				r->why = "the column loops do not all run to the same bound";
				return -1;
			} else {
				free(n);
			}
		}
		if (bad_tokens(syn, s->kids[0]->t0, s->kids[0]->t1) ||
		    astra_facts_assigned_in(&r->f, j, strlen(j), s->kids[0]->t0, s->kids[0]->t1)) {
			free(j);
			r->why = "a column loop's body jumps, synchronizes, reads the thread index or changes its index";
			return -1;
		}
		sc.j = j;
		sc.loop = s;
		astra_facts_each_part(&r->f, s->kids[0], scan_part, &sc);
		free(j);
		if (sc.bad) {
			r->why = "a column loop's iterations depend on each other (a variable of the row changes, or "
				 "a buffer it writes is read at another column)";
			return -1;
		}
		if (pass == 0) {
			ALLOC_GROW(r->loops, r->nr_loops + 1, r->alloc_loops);
			r->loops[r->nr_loops++] = s;
		}
		return 0;
	default:
		r->why = "the row's code has a statement other than declarations, ifs, returns and column loops";
		return -1;
	}
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct rs r;
	struct astra_syn *syn;
	struct astra_stmt *body, *g = NULL;
	const struct astra_local *row = NULL;
	struct astra_syn_edits e = { NULL, 0, 0 };
	size_t vi, gi, i;
	char *R = NULL, *Rp = NULL, *Np = NULL, *N = NULL, *rowty = NULL, *bp = NULL;
	int ret = 0;
	(void)arg;

	memset(&r, 0, sizeof(r));
	r.rk = rk;
	astra_vec_init(&r.wbases);
	astra_vec_init(&r.wkeys);
	if (astra_facts_build(&r.f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	syn = r.syn = &rk->syn;
	body = syn->body;
	if (astra_facts_mentions_grid(&r.f, body->t0, body->t1, 1)) {
		astra_buf_adds(why, "the kernel uses a 2-D or 3-D thread index");
		goto out;
	}
	for (vi = 0; vi < body->nr_kids && !row; vi++) {
		struct astra_stmt *s = body->kids[vi];
		struct astra_decl *d = NULL;
		if (s->kind == STMT_DECL && astra_syn_decls(syn, s->a0, s->a1, &d) == 1 && d[0].init1 > d[0].init0 &&
		    astra_facts_tix(&r.f, astra_syn_expr(syn, d[0].init0, d[0].init1)) == TIX_GTID)
			row = astra_facts_local_tok(&r.f, d[0].name);
		free(d);
	}
	if (!row || row->assigned || row->nr_decls != 1) {
		astra_buf_adds(why, "no `row = blockIdx.x * blockDim.x + threadIdx.x` set once at the top of the kernel");
		goto out;
	}
	for (gi = vi; gi < body->nr_kids && body->kids[gi]->kind == STMT_DECL &&
		      !astra_syn_mentions(syn, body->kids[gi]->t0, body->kids[gi]->t1, row->name); gi++)
		;
	if (gi >= body->nr_kids || (g = body->kids[gi])->kind != STMT_IF || g->nr_kids != 1 || g->a1 < g->a0 + 3 ||
	    !astra_syn_is(syn, g->a0, row->name) || !astra_syn_is(syn, g->a0 + 1, ">=") ||
	    !(g->kids[0]->kind == STMT_RETURN ||
	      (g->kids[0]->kind == STMT_BLOCK && g->kids[0]->nr_kids == 1 && g->kids[0]->kids[0]->kind == STMT_RETURN))) {
		astra_buf_addf(why, "no `if (%s >= rows) return;` after the row's index", row->name);
		goto out;
	}
	for (i = gi + 1; i < body->nr_kids; i++)
		if (row_level(&r, body->kids[i], 0) < 0)
			break;
	for (i = gi + 1; !r.why && i < body->nr_kids; i++)
		if (row_level(&r, body->kids[i], 1) < 0)
			break;
	if (r.why) {
		astra_buf_adds(why, r.why);
		goto out;
	}
	if (!r.nr_loops) {
		astra_buf_adds(why, "no loop over the row's columns `for (j = 0; j < N; j++)`");
		goto out;
	}
	R = astra_syn_text(syn, g->a0 + 2, g->a1);
	N = astra_syn_text(syn, r.n0, r.n1);
	Rp = astra_facts_to_params(&r.f, R);
	Np = astra_facts_to_params(&r.f, N);
	bp = rk->block && astra_rk_params_only(rk, rk->block) ? xstrdup(rk->block) : NULL;
	if (!Rp || !Np || !astra_rk_params_only(rk, Rp) || !astra_rk_params_only(rk, Np) || !bp) {
		astra_buf_addf(why, "the rows (%s), the columns (%s) or the block size are not expressions of the "
				    "kernel's parameters, so the new grid cannot be computed", R, N);
		goto out;
	}
	{
		char *prod = xasprintf("(%s) * (%s)", Rp, Np);
		const char *ity;
		char *ind = astra_rk_line_indent(rk, astra_syn_off(syn, g->t0));
		long long most = astra_rk_max_over_shapes(rk, prod);
		ity = most >= 0 && most < (1LL << 31) ? "int" : "long long";
		rowty = astra_syn_text(syn, row->d.ty0, row->d.ty1);
		/* the flat index and its bounds check in place of the row's */
		astra_syn_edit_owned(&e, astra_syn_off(syn, row->d.init0), astra_syn_end(syn, row->d.init1 - 1),
				      xasprintf("astra_e / (%s)", Np));
		astra_syn_edit_owned(&e, astra_syn_off(syn, row->stmt->t0), astra_syn_off(syn, row->stmt->t0),
				      xasprintf("/* astra-cc rules: a thread per (row, column) */\n%s%s astra_e = (%s)blockIdx.x * "
						"blockDim.x + threadIdx.x;\n%sif (astra_e >= (%s)(%s) * (%s))\n%s\treturn;\n%s",
						ind, ity, ity, ind, ity, Rp, Np, ind, ind));
		/*
		 * each column loop: its body for the thread's column.  The loop
		 * variables are declared once, after the column, when no other
		 * code of the row declares their names (then the bodies share the
		 * declaration: a body that runs element by element reads one
		 * declaration of each name); else each body in a block with its own.
		 */
		{
			struct astra_vec names = ASTRA_VEC_INIT, types = ASTRA_VEC_INIT;
			int shared = 1;
			for (i = 0; i < r.nr_loops; i++) {
				struct astra_stmt *l = r.loops[i];
				struct astra_decl *d = NULL;
				char *ty, *j;
				const struct astra_local *lo;
				long at;
				astra_syn_decls(syn, l->a0, l->a1, &d);
				ty = astra_syn_text(syn, d[0].ty0, d[0].ty1);
				j = astra_syn_tokstr(syn, d[0].name);
				lo = astra_facts_local(&r.f, j, strlen(j));
				at = astra_vec_find(&names, j);
				if (at < 0) {
					astra_vec_push(&names, j);
					astra_vec_push(&types, ty);
					/* every declaration of the name is one of the loops' */
					if (lo && lo->nr_decls > 1) {
						size_t k, n = 0;
						for (k = 0; k < r.nr_loops; k++)
							if (astra_syn_mentions(syn, r.loops[k]->a0, r.loops[k]->a1, j))
								n++;
						if ((int)n != lo->nr_decls)
							shared = 0;
					}
				} else if (strcmp(types.v[at], ty)) {
					shared = 0;
				}
				free(ty);
				free(j);
				free(d);
			}
			for (i = 0; i < r.nr_loops; i++) {
				struct astra_stmt *l = r.loops[i];
				struct astra_decl *d = NULL;
				char *lind = astra_rk_line_indent(rk, astra_syn_off(syn, l->t0)), *ty, *j;
				astra_syn_decls(syn, l->a0, l->a1, &d);
				ty = astra_syn_text(syn, d[0].ty0, d[0].ty1);
				j = astra_syn_tokstr(syn, d[0].name);
				if (shared) {
					astra_syn_edit(&e, astra_syn_off(syn, l->t0), astra_syn_off(syn, l->kids[0]->t0), "");
				} else {
					astra_syn_edit_owned(&e, astra_syn_off(syn, l->t0), astra_syn_off(syn, l->kids[0]->t0),
							      xasprintf("{\n%s\tconst %s %s = astra_c;\n%s\t", lind, ty, j, lind));
					astra_syn_edit_owned(&e, astra_syn_end(syn, l->t1 - 1), astra_syn_end(syn, l->t1 - 1),
							      xasprintf("\n%s}", lind));
				}
				free(lind);
				free(ty);
				free(j);
				free(d);
			}
			{
				struct astra_buf decls = ASTRA_BUF_INIT;
				astra_buf_addf(&decls, "const int astra_c = (int)(astra_e %% (%s));", Np);
				for (i = 0; shared && i < names.nr; i++)
					astra_buf_addf(&decls, "\n%sconst %s %s = astra_c;", ind, types.v[i], names.v[i]);
				astra_syn_edit_owned(&e, astra_syn_off(syn, g->t0), astra_syn_end(syn, g->t1 - 1),
						      astra_buf_detach(&decls, NULL));
			}
			astra_vec_clear(&names);
			astra_vec_clear(&types);
		}
		free(ind);
		free(prod);
	}
	if (astra_rk_edit(rk, &e) < 0) {
		ret = -1;
		goto out;
	}
	{
		char *grid = xasprintf("((%s) * (%s) + (%s) - 1) / (%s)", Rp, Np, bp, bp);
		astra_rk_set_launch(rk, grid, NULL, NULL);
		free(grid);
	}
	ret = 1;
out:
	astra_syn_edits_release(&e);
	free(R);
	free(N);
	free(Rp);
	free(Np);
	free(rowty);
	free(bp);
	free(r.n);
	free(r.loops);
	astra_vec_clear(&r.wbases);
	astra_vec_clear(&r.wkeys);
	astra_facts_release(&r.f);
	return ret;
}

const struct astra_rule astra_rule_row_split = {
	.name = "row-split",
	.summary = "thread-per-row kernel with independent column loops -> a thread per (row, column) over rows x columns",
	.flags = RULE_GEOMETRY,
	.stage = 10,
	.excludes = "block-per-row,warp-per-row",
	.apply = apply,
};
