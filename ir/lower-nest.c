/*
 * lower-nest.c - code from the IR for loop nests with reuse (see
 * lower.h): a contraction, out[r, c] = f(sum_k(g(A[r, k], B[k, c], ...))),
 * lowered to a shared-memory tiled kernel; and the helpers the loop-nest
 * lowerings share (lower-nest.h: lower-matvec.c, lower-stencil.c).
 *
 * The kernel a contraction becomes: T x T blocks, a thread per output
 * element as in the original, each block taking the T x T tiles of the
 * output in a grid-stride loop over both directions (so the original's
 * grid, whatever block it was computed for, covers the output), and the
 * inner axis k walked in steps of T.  At each step every operand of the sum (a load whose index
 * depends on k and on one of r, c) is staged in a T x (T + 1) shared tile
 * by the block (one element per thread, the unit-stride index on
 * threadIdx.x so the loads coalesce; zero outside the matrix), then each
 * thread adds the step's terms from the tiles in the original's order of
 * k.  The running sum starts where the original's did (its seed, or 0),
 * so for each element the additions are the original's, in its order.
 * The stores are the original's, under the original's guard: no element
 * outside it is written, and out-of-range threads only help to load.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "ir/lower.h"
#include "ir/lower-nest.h"
#include "ir/print.h"
#include "lib/util.h"

void astra_nest_refuse(struct nw *w, unsigned line, const char *what)
{
	if (!w->bad) {
		if (line)
			astra_buf_addf(w->why, "%s:%u: ", w->k->file ? w->k->file : "?", line);
		astra_buf_adds(w->why, what);
	}
	w->bad = 1;
}

int astra_nest_depends(const struct astra_ir_node *n, const char *atom)
{
	size_t j;
	if (n->kind == IR_ATOM && !strcmp(n->s, atom))
		return 1;
	for (j = 0; j < n->nr; j++)
		if (astra_nest_depends(n->a[j], atom))
			return 1;
	return 0;
}

int astra_nest_has_kind(const struct astra_ir_node *n, enum astra_ir_kind kind)
{
	size_t j;
	if (n->kind == kind)
		return 1;
	for (j = 0; j < n->nr; j++)
		if (astra_nest_has_kind(n->a[j], kind))
			return 1;
	return 0;
}

int astra_nest_same_expr(const struct astra_ir_node *a, const struct astra_ir_node *b)
{
	struct astra_buf x = ASTRA_BUF_INIT, y = ASTRA_BUF_INIT;
	int r;
	astra_ir_print_expr(a, &x);
	astra_ir_print_expr(b, &y);
	r = x.len == y.len && (!x.len || !strcmp(x.buf, y.buf));
	astra_buf_release(&x);
	astra_buf_release(&y);
	return r;
}

/* n with the atom `from` replaced by `to`, in w's arena. */
struct astra_ir_node *astra_nest_subst(struct nw *w, const struct astra_ir_node *n, const char *from,
				   struct astra_ir_node *to)
{
	struct astra_ir_node *c;
	size_t j;
	if (n->kind == IR_ATOM && !strcmp(n->s, from))
		return to;
	c = astra_ir_alloc(&w->ar, sizeof(*c));
	*c = *n;
	if (n->nr) {
		c->a = astra_ir_alloc(&w->ar, n->nr * sizeof(*c->a));
		for (j = 0; j < n->nr; j++)
			c->a[j] = astra_nest_subst(w, n->a[j], from, to);
	}
	return c;
}

/* Does index n advance by 1 when k does? */
const struct astra_ir_node *astra_nest_moved(struct nw *w, const struct astra_ir_node *n, const char *atom, int d)
{
	char nd[16];
	if (!d)
		return n;
	snprintf(nd, sizeof(nd), "%d", d);
	return astra_nest_subst(w, n, atom,
				astra_ir_node(&w->ar, IR_BIN, "+", 2, astra_ir_node(&w->ar, IR_ATOM, atom, 0),
					      astra_ir_node(&w->ar, IR_NUM, astra_ir_strdup(&w->ar, nd, strlen(nd)), 0)));
}

int astra_nest_same_poly(struct nw *w, const struct astra_ir_node *a, const struct astra_ir_node *b)
{
	struct astra_buf t = ASTRA_BUF_INIT;
	int same;
	astra_ir_print_poly(astra_ir_node(&w->ar, IR_BIN, "-", 2, (struct astra_ir_node *)a, (struct astra_ir_node *)b), &t);
	same = t.len && !strcmp(t.buf, "0");
	astra_buf_release(&t);
	return same;
}

int astra_nest_unit_in(struct nw *w, const struct astra_ir_node *n, const char *atom)
{
	struct astra_ir_node *d = astra_ir_node(&w->ar, IR_BIN, "-", 2, (struct astra_ir_node *)astra_nest_moved(w, n, atom, 1),
						(struct astra_ir_node *)n);
	struct astra_buf t = ASTRA_BUF_INIT;
	int r;
	astra_ir_print_poly(d, &t);
	r = t.len && !strcmp(t.buf, "1");
	astra_buf_release(&t);
	return r;
}

static void find_red(struct nw *w, const struct astra_ir_node *n, unsigned line)
{
	size_t j;
	if (n->kind == IR_RED || n->kind == IR_PARTIAL) {
		if (n->kind == IR_PARTIAL || !n->axis || strcmp(n->axis, "k")) {
			astra_nest_refuse(w, line, "a reduction that is not over k");
			return;
		}
		if (w->red && !astra_nest_same_expr(w->red, n)) {
			astra_nest_refuse(w, line, "two different sums over k");
			return;
		}
		w->red = n;
		w->red_line = line;
		if (n->nr > 1)
			find_red(w, n->a[1], line);   /* a seed holds no second reduction */
		if (astra_nest_has_kind(n->a[0], IR_RED))
			astra_nest_refuse(w, line, "a reduction inside the sum over k");
		return;
	}
	for (j = 0; j < n->nr; j++)
		find_red(w, n->a[j], line);
}

/* The loads of the sum's body: each a tile operand. */
static void find_operands(struct nw *w, const struct astra_ir_node *n)
{
	size_t j;
	if (n->kind == IR_LOAD) {
		int dr = astra_nest_depends(n->a[0], "r"), dc = astra_nest_depends(n->a[0], "c"), dk = astra_nest_depends(n->a[0], "k");
		if (astra_nest_has_kind(n->a[0], IR_LOAD)) {
			astra_nest_refuse(w, w->red_line, "a gather inside the sum over k (an index read from memory)");
			return;
		}
		if (!dk) {
			astra_nest_refuse(w, w->red_line, "a load inside the sum over k that does not depend on k");
			return;
		}
		if (dr == dc) {
			astra_nest_refuse(w, w->red_line, dr ? "a load inside the sum over k that depends on r, c and k" :
					       "a load inside the sum over k that depends on k alone (a vector)");
			return;
		}
		for (j = 0; j < w->nr_ops; j++)
			if (astra_nest_same_expr(w->ops[j].load, n))
				return;
		if (w->nr_ops == MAX_OPERANDS) {
			astra_nest_refuse(w, w->red_line, "more than four operands in the sum over k");
			return;
		}
		w->ops[w->nr_ops].load = n;
		w->ops[w->nr_ops].outer = dr ? "r" : "c";
		w->ops[w->nr_ops].k_unit = astra_nest_unit_in(w, n->a[0], "k");
		w->nr_ops++;
		return;
	}
	for (j = 0; j < n->nr; j++)
		find_operands(w, n->a[j]);
}

/* Does n load buf at an index other than `at`? */
int astra_nest_loads_elsewhere(const struct astra_ir_node *n, const char *buf, const struct astra_ir_node *at)
{
	size_t j;
	if (n->kind == IR_LOAD && !strcmp(n->s, buf) && !astra_nest_same_expr(n->a[0], at))
		return 1;
	for (j = 0; j < n->nr; j++)
		if (astra_nest_loads_elsewhere(n->a[j], buf, at))
			return 1;
	return 0;
}

void astra_nest_emit_stores(struct nw *w, const char *type, const char *indent,
			    int (*skip)(const struct astra_ir *ir, const struct astra_ir_store *s), struct astra_buf *b)
{
	const struct astra_ir *ir = w->ir;
	size_t j;
	for (j = 0; j < ir->nr_stores; j++) {
		if (skip && skip(ir, &ir->stores[j]))
			continue;
		astra_buf_addf(b, "%sconst %s astra_v%zu = ", indent, type, j);
		astra_nest_emit(w, ir->stores[j].value, b);
		astra_buf_adds(b, ";\n");
	}
	for (j = 0; j < ir->nr_stores; j++) {
		if (skip && skip(ir, &ir->stores[j]))
			continue;
		astra_buf_addf(b, "%s%s[", indent, ir->stores[j].buf);
		astra_nest_emit(w, ir->stores[j].index, b);
		astra_buf_addf(b, "] = astra_v%zu;\n", j);
	}
}

void astra_nest_emit(struct nw *w, const struct astra_ir_node *n, struct astra_buf *out)
{
	size_t j;
	switch (n->kind) {
	case IR_NUM:
	case IR_NAME:
		astra_buf_adds(out, n->s);
		return;
	case IR_ATOM:
		if (!strcmp(n->s, "r") && w->name_r)
			astra_buf_adds(out, w->name_r);
		else if (!strcmp(n->s, "c") && w->name_c)
			astra_buf_adds(out, w->name_c);
		else if (!strcmp(n->s, "k") && w->name_k)
			astra_buf_adds(out, w->name_k);
		else
			astra_nest_refuse(w, 0, "a value of a thread index");
		return;
	case IR_LOAD:
		for (j = 0; j < w->nr_rep; j++)
			if (astra_nest_same_expr(w->rep_load[j], n)) {
				astra_buf_adds(out, w->rep_text[j]);
				return;
			}
		if (w->tiles)
			for (j = 0; j < w->nr_ops; j++)
				if (astra_nest_same_expr(w->ops[j].load, n)) {
					int r = !strcmp(w->ops[j].outer, "r");
					if (w->tiles == 2)   /* register-blocked: this thread's i-th row, j-th column */
						astra_buf_addf(out, "astra_f%zu[astra_%s]", j, r ? "i" : "j");
					else
						astra_buf_addf(out, "astra_t%zu[threadIdx.%s][astra_kk]", j, r ? "y" : "x");
					return;
				}
		astra_buf_addf(out, "%s[", n->s);
		astra_nest_emit(w, n->a[0], out);
		astra_buf_addch(out, ']');
		return;
	case IR_BIN:
		astra_buf_addch(out, '(');
		astra_nest_emit(w, n->a[0], out);
		astra_buf_addf(out, " %s ", n->s);
		astra_nest_emit(w, n->a[1], out);
		astra_buf_addch(out, ')');
		return;
	case IR_UN:
	case IR_CAST:   /* a local's declared type around a literal */
		astra_buf_addf(out, n->kind == IR_CAST ? "((%s)" : "(%s", n->s);
		astra_nest_emit(w, n->a[0], out);
		astra_buf_addch(out, ')');
		return;
	case IR_COND:
		astra_buf_addch(out, '(');
		astra_nest_emit(w, n->a[0], out);
		astra_buf_adds(out, " ? ");
		astra_nest_emit(w, n->a[1], out);
		astra_buf_adds(out, " : ");
		astra_nest_emit(w, n->a[2], out);
		astra_buf_addch(out, ')');
		return;
	case IR_CALL:
		astra_buf_addf(out, "%s(", n->s);
		for (j = 0; j < n->nr; j++) {
			if (j)
				astra_buf_adds(out, ", ");
			astra_nest_emit(w, n->a[j], out);
		}
		astra_buf_addch(out, ')');
		return;
	case IR_RED:
		if (n == w->red || astra_nest_same_expr(n, w->red))
			astra_buf_adds(out, w->acc ? w->acc : "astra_acc");
		else
			astra_nest_refuse(w, 0, "a reduction the lowering did not collect");
		return;
	default:
		astra_nest_refuse(w, 0, "a node the lowering does not emit");
		return;
	}
}

/*
 * A triangle: the columns start at the row (c >= r + d, d >= 0, a thread
 * per row's `for (j2 = j1 + d; ...)`).  Returns d, or -1 when the first
 * column is not of that form.
 */
static int triangle(const struct astra_ir *ir)
{
	const struct astra_ir_node *n = ir->cols_first, *num;
	if (!n)
		return -1;
	if (n->kind == IR_ATOM && !strcmp(n->s, "r"))
		return 0;
	if (n->kind != IR_BIN || strcmp(n->s, "+") || n->nr != 2)
		return -1;
	num = n->a[0]->kind == IR_ATOM && !strcmp(n->a[0]->s, "r") ? n->a[1] :
	      n->a[1]->kind == IR_ATOM && !strcmp(n->a[1]->s, "r") ? n->a[0] : NULL;
	if (!num || num->kind != IR_NUM || strspn(num->s, "0123456789") != strlen(num->s) || strlen(num->s) > 4)
		return -1;
	return atoi(num->s);
}

/* A thread per row's store once per row (before or after its loop over the columns). */
static int row_store(const struct astra_ir *ir, const struct astra_ir_store *s)
{
	return ir->mapping == IR_MAP_THREAD_ROW && !astra_nest_depends(s->index, "c");
}

/* Do places a (of r, c) and b meet where c = r (both taken at c = r print the same)? */
static int diagonal_meet(struct nw *w, const struct astra_ir_node *a, const struct astra_ir_node *b)
{
	struct astra_ir_node *r = astra_ir_node(&w->ar, IR_ATOM, "r", 0);
	return astra_nest_same_expr(astra_nest_subst(w, a, "c", r), astra_nest_subst(w, b, "c", r));
}

/*
 * A store per row next to the stores per element (correlation's
 * `symmat[j1][j1] = 1.0` before its triangle from j1 + 1): lowered once per
 * row, before the row's elements, so its value must not be the sum, and
 * no element store of the same row may reach its place: each element
 * store's place taken at c = r is the row store's, and the triangle
 * starts past the diagonal.
 */
static void check_row_store(struct nw *w, const struct astra_ir_store *s)
{
	const struct astra_ir *ir = w->ir;
	size_t m;
	if (astra_nest_has_kind(s->value, IR_RED) || astra_nest_depends(s->value, "c")) {
		astra_nest_refuse(w, s->line, "a store per row whose value is a sum or depends on the column");
		return;
	}
	for (m = 0; m < ir->nr_stores && !w->bad; m++) {
		const struct astra_ir_store *e = &ir->stores[m];
		if (row_store(ir, e) || strcmp(e->buf, s->buf))
			continue;
		if (triangle(ir) < 1 || !diagonal_meet(w, e->index, s->index))
			astra_nest_refuse(w, s->line, "a store per row that an element's store of its row may reach");
	}
}

static int check(struct nw *w)
{
	const struct astra_ir *ir = w->ir;
	size_t j, m;
	if ((ir->mapping != IR_MAP_2D && ir->mapping != IR_MAP_THREAD_ROW) || !ir->rows || !ir->cols || !ir->inner) {
		astra_nest_refuse(w, 0, "not a contraction (a thread per out[r, c], or a thread per row and its loop over "
				     "the columns, and a loop over k)");
		return -1;
	}
	if (ir->rows_lo || (ir->cols_lo && triangle(ir) < 0)) {
		astra_nest_refuse(w, 0, "rows or columns that do not start at 0 or, for the columns, at the row (r + d)");
		return -1;
	}
	for (j = 0; j < ir->nr_stores && !w->bad; j++) {
		const struct astra_ir_store *s = &ir->stores[j];
		if (s->accumulate)
			astra_nest_refuse(w, s->line, "an atomic store");
		else if (astra_nest_depends(s->index, "k"))
			astra_nest_refuse(w, s->line, "a store whose place depends on k");
		else if (row_store(ir, s))
			check_row_store(w, s);
		else if (ir->mapping == IR_MAP_THREAD_ROW && triangle(ir) == 0)
			for (m = 0; m < j && !w->bad; m++)
				if (!row_store(ir, &ir->stores[m]) && diagonal_meet(w, s->index, ir->stores[m].index) &&
				    !astra_nest_same_expr(s->value, ir->stores[m].value))
					astra_nest_refuse(w, s->line, "two stores of different values that meet on the diagonal");
		for (m = 0; m < ir->nr_stores && !w->bad; m++)
			if (astra_nest_loads_elsewhere(ir->stores[m].value, s->buf, s->index))
				astra_nest_refuse(w, s->line, "a stored buffer is read at another place");
		if (!w->bad)
			find_red(w, s->value, s->line);
	}
	if (!w->bad && !w->red)
		astra_nest_refuse(w, ir->stores[0].line, "no sum over k");
	if (!w->bad && strcmp(w->red->s, "sum"))
		astra_nest_refuse(w, w->red_line, "a maximum or minimum over k (only sums are tiled)");
	if (!w->bad)
		find_operands(w, w->red->a[0]);
	if (!w->bad && !w->nr_ops)
		astra_nest_refuse(w, w->red_line, "no load inside the sum over k");
	return w->bad ? -1 : 0;
}

/*
 * Register-blocked: each block of 16 x 16 threads computes a (16 tm) x
 * (16 tn) tile of the output, each thread tm x tn outputs of it: its rows
 * in groups of 4 adjacent ones, 64 apart (i / 4 * 64 + threadIdx.y * 4 +
 * i % 4), its columns likewise by threadIdx.x.  k goes in steps of bk;
 * each operand's (16 tm or 16 tn) x bk piece is staged k-major in shared
 * memory, its rows padded by 4 (aligned, so a thread's 4 adjacent values
 * are one vector read, and a quarter-warp's reads fall in distinct
 * banks).  The next step's piece is fetched from global memory into
 * registers (astra_p<n>, the unit-stride index across consecutive
 * threads) while the block computes on the current one.  At each k a
 * thread reads its values of every operand into registers (astra_f<n>)
 * and does its tm x tn terms from them; a whole step is unrolled, the
 * last shorter one is a loop.  Each output's additions are still the
 * original's, in its order of k.
 */
static void contract_rb(struct nw *w, const char *type, const struct astra_contract_rb *s, struct astra_buf *b)
{
	const struct astra_ir *ir = w->ir;
	const int tm = s->tm, tn = s->tn, bk = s->bk, bm = RB_T * tm, bn = RB_T * tn, nt = RB_T * RB_T;
	struct astra_buf step = ASTRA_BUF_INIT, fetch = ASTRA_BUF_INIT;
	/* the thread's i-th row and j-th column in the block's tile */
	char *ri = xasprintf("astra_i / 4 * %d + threadIdx.y * 4 + astra_i %% 4", 4 * RB_T);
	char *cj = xasprintf("astra_j / 4 * %d + threadIdx.x * 4 + astra_j %% 4", 4 * RB_T);
	char *name_r, *name_c;
	size_t j;
	astra_buf_adds(b, "{\n");
	for (j = 0; j < w->nr_ops; j++)
		astra_buf_addf(b, "\t__shared__ __align__(16) %s astra_t%zu[%d][%d];\n", type, j, bk,
			       (!strcmp(w->ops[j].outer, "r") ? bm : bn) + 4);
	astra_buf_addf(b, "\tconst int astra_t = threadIdx.y * %d + threadIdx.x;\n", RB_T);
	astra_buf_addf(b, "\tfor (int astra_tr = blockIdx.y; astra_tr * %d < (%s); astra_tr += gridDim.y)\n", bm, ir->rows);
	astra_buf_addf(b, "\tfor (int astra_tc = blockIdx.x; astra_tc * %d < (%s); astra_tc += gridDim.x) {\n", bn, ir->cols);
	if (ir->mapping == IR_MAP_THREAD_ROW) {
		/* the stores once per row, by the blocks of the first tile column, before any element's */
		int any = 0;
		for (j = 0; j < ir->nr_stores; j++)
			any |= row_store(ir, &ir->stores[j]);
		if (any) {
			astra_buf_addf(b, "\t\tif (astra_tc == 0)\n\t\tfor (int astra_q = astra_t; astra_q < %d; astra_q += %d) {\n",
				       bm, nt);
			astra_buf_addf(b, "\t\t\tconst int astra_r = astra_tr * %d + astra_q;\n", bm);
			astra_buf_addf(b, "\t\t\tif (astra_r < (%s)) {\n", ir->rows);
			w->name_r = "astra_r";
			w->name_c = NULL;
			for (j = 0; j < ir->nr_stores; j++) {
				if (!row_store(ir, &ir->stores[j]))
					continue;
				astra_buf_addf(b, "\t\t\t\t%s[", ir->stores[j].buf);
				astra_nest_emit(w, ir->stores[j].index, b);
				astra_buf_adds(b, "] = ");
				astra_nest_emit(w, ir->stores[j].value, b);
				astra_buf_adds(b, ";\n");
			}
			astra_buf_adds(b, "\t\t\t}\n\t\t}\n");
		}
	}
	if (ir->cols_first) {   /* check() let only a triangle through */
		/* a triangle: a tile whose every column is left of its first row's first column has nothing to do */
		char *r0 = xasprintf("(astra_tr * %d)", bm);
		w->name_r = r0;
		astra_buf_addf(b, "\t\tif (astra_tc * %d + %d < ", bn, bn - 1);
		astra_nest_emit(w, ir->cols_first, b);
		astra_buf_adds(b, ")\n\t\t\tcontinue;\n");
		free(r0);
	}
	astra_buf_addf(b, "\t\t%s astra_acc[%d][%d];\n", type, tm, tn);
	astra_buf_addf(b, "#pragma unroll\n\t\tfor (int astra_i = 0; astra_i < %d; astra_i++)\n", tm);
	astra_buf_addf(b, "#pragma unroll\n\t\tfor (int astra_j = 0; astra_j < %d; astra_j++) {\n", tn);
	astra_buf_adds(b, "\t\t\tastra_acc[astra_i][astra_j] = 0;\n");
	w->name_r = "astra_r";
	w->name_c = "astra_c";
	if (w->red->nr > 1) {
		/* the sum's start, where the original's was */
		astra_buf_addf(b, "\t\t\tconst int astra_r = astra_tr * %d + %s;\n", bm, ri);
		astra_buf_addf(b, "\t\t\tconst int astra_c = astra_tc * %d + %s;\n", bn, cj);
		astra_buf_addf(b, "\t\t\tif (astra_r < (%s) && astra_c < (%s))\n\t\t\t\tastra_acc[astra_i][astra_j] = ",
			       ir->rows, ir->cols);
		astra_nest_emit(w, w->red->a[1], b);
		astra_buf_adds(b, ";\n");
	}
	astra_buf_adds(b, "\t\t}\n");
	/* each operand's piece of the step at astra_kf: nt threads, bo * bk elements, into registers */
	for (j = 0; j < w->nr_ops; j++) {
		const struct operand *o = &w->ops[j];
		int r = !strcmp(o->outer, "r");
		const int bo = r ? bm : bn;
		astra_buf_addf(&fetch, "#pragma unroll\n\t\t\tfor (int astra_u = 0; astra_u < %d; astra_u++) {\n", bo * bk / nt);
		/* the unit-stride index across consecutive threads */
		astra_buf_addf(&fetch, "\t\t\t\tconst int astra_e = astra_t + %d * astra_u;\n", nt);
		astra_buf_addf(&fetch, "\t\t\t\tconst int astra_ol = astra_e %s %d, astra_kl = astra_e %s %d;\n",
			       o->k_unit ? "/" : "%", o->k_unit ? bk : bo, o->k_unit ? "%" : "/", o->k_unit ? bk : bo);
		astra_buf_addf(&fetch, "\t\t\t\tconst int astra_o = astra_t%s * %d + astra_ol, astra_k = astra_kf + astra_kl;\n",
			       r ? "r" : "c", bo);
		astra_buf_addf(&fetch, "\t\t\t\tastra_p%zu[astra_u] = astra_o < (%s) && astra_k < (%s) ? ", j,
			       r ? ir->rows : ir->cols, ir->inner);
		w->name_r = r ? "astra_o" : NULL;
		w->name_c = r ? NULL : "astra_o";
		w->name_k = "astra_k";
		astra_nest_emit(w, o->load, &fetch);
		astra_buf_adds(&fetch, " : 0;\n\t\t\t}\n");
		astra_buf_addf(b, "\t\t%s astra_p%zu[%d];\n", type, j, bo * bk / nt);
	}
	astra_buf_adds(b, "\t\t{\n\t\t\tconst int astra_kf = 0;\n");
	astra_buf_add(b, fetch.buf, fetch.len);
	astra_buf_adds(b, "\t\t}\n");
	astra_buf_addf(b, "\t\tfor (int astra_k0 = 0; astra_k0 < (%s); astra_k0 += %d) {\n", ir->inner, bk);
	for (j = 0; j < w->nr_ops; j++) {
		const struct operand *o = &w->ops[j];
		const int bo = !strcmp(o->outer, "r") ? bm : bn;
		astra_buf_addf(b, "#pragma unroll\n\t\t\tfor (int astra_u = 0; astra_u < %d; astra_u++) {\n", bo * bk / nt);
		astra_buf_addf(b, "\t\t\t\tconst int astra_e = astra_t + %d * astra_u;\n", nt);
		astra_buf_addf(b, "\t\t\t\tastra_t%zu[astra_e %s %d][astra_e %s %d] = astra_p%zu[astra_u];\n\t\t\t}\n", j,
			       o->k_unit ? "%" : "/", o->k_unit ? bk : bo, o->k_unit ? "/" : "%", o->k_unit ? bk : bo, j);
	}
	astra_buf_adds(b, "\t\t\t__syncthreads();\n");
	/* the next step's pieces load while this one is computed */
	astra_buf_addf(b, "\t\t\tif (astra_k0 + %d < (%s)) {\n\t\t\tconst int astra_kf = astra_k0 + %d;\n", bk, ir->inner, bk);
	astra_buf_add(b, fetch.buf, fetch.len);
	astra_buf_adds(b, "\t\t\t}\n");
	astra_buf_addf(b, "\t\t\tconst int astra_kn = (%s) - astra_k0 < %d ? (%s) - astra_k0 : %d;\n", ir->inner, bk,
		       ir->inner, bk);
	/* one k of the step: each operand's values of this thread in registers, then the terms */
	astra_buf_adds(&step, "{\n");
	for (j = 0; j < w->nr_ops; j++) {
		int r = !strcmp(w->ops[j].outer, "r");
		astra_buf_addf(&step, "\t\t\t\t%s astra_f%zu[%d];\n", type, j, r ? tm : tn);
		astra_buf_addf(&step, "#pragma unroll\n\t\t\t\tfor (int astra_q = 0; astra_q < %d; astra_q++)\n", r ? tm : tn);
		astra_buf_addf(&step, "\t\t\t\t\tastra_f%zu[astra_q] = astra_t%zu[astra_kk][astra_q / 4 * %d + "
			       "threadIdx.%s * 4 + astra_q %% 4];\n", j, j, 4 * RB_T, r ? "y" : "x");
	}
	astra_buf_addf(&step, "#pragma unroll\n\t\t\t\tfor (int astra_i = 0; astra_i < %d; astra_i++)\n", tm);
	astra_buf_addf(&step, "#pragma unroll\n\t\t\t\tfor (int astra_j = 0; astra_j < %d; astra_j++)\n", tn);
	astra_buf_adds(&step, "\t\t\t\t\tastra_acc[astra_i][astra_j] = astra_acc[astra_i][astra_j] + ");
	name_r = xasprintf("(astra_tr * %d + %s)", bm, ri);
	name_c = xasprintf("(astra_tc * %d + %s)", bn, cj);
	w->name_r = name_r;
	w->name_c = name_c;
	w->name_k = "(astra_k0 + astra_kk)";
	w->tiles = 2;
	astra_nest_emit(w, w->red->a[0], &step);
	w->tiles = 0;
	w->name_k = NULL;
	astra_buf_adds(&step, ";\n\t\t\t}\n");
	astra_buf_addf(b, "\t\t\tif (astra_kn == %d) {\n#pragma unroll\n\t\t\tfor (int astra_kk = 0; astra_kk < %d; astra_kk++) ",
		       bk, bk);
	astra_buf_add(b, step.buf, step.len);
	astra_buf_adds(b, "\t\t\t} else {\n\t\t\tfor (int astra_kk = 0; astra_kk < astra_kn; astra_kk++) ");
	astra_buf_add(b, step.buf, step.len);
	astra_buf_adds(b, "\t\t\t}\n\t\t\t__syncthreads();\n\t\t}\n");
	astra_buf_addf(b, "#pragma unroll\n\t\tfor (int astra_i = 0; astra_i < %d; astra_i++)\n", tm);
	astra_buf_addf(b, "#pragma unroll\n\t\tfor (int astra_j = 0; astra_j < %d; astra_j++) {\n", tn);
	astra_buf_addf(b, "\t\t\tconst int astra_r = astra_tr * %d + %s;\n", bm, ri);
	astra_buf_addf(b, "\t\t\tconst int astra_c = astra_tc * %d + %s;\n", bn, cj);
	astra_buf_addf(b, "\t\t\tif (astra_r < (%s) && astra_c < (%s)", ir->rows, ir->cols);
	w->name_r = "astra_r";
	w->name_c = "astra_c";
	if (ir->cols_first) {
		astra_buf_adds(b, " && astra_c >= ");
		astra_nest_emit(w, ir->cols_first, b);
	}
	astra_buf_adds(b, ") {\n");
	w->acc = "astra_acc[astra_i][astra_j]";
	astra_nest_emit_stores(w, type, "\t\t\t\t", row_store, b);
	w->acc = NULL;
	astra_buf_adds(b, "\t\t\t}\n\t\t}\n\t}\n}\n");
	astra_buf_release(&step);
	astra_buf_release(&fetch);
	free(name_r);
	free(name_c);
	free(ri);
	free(cj);
}

int astra_ir_lower_contract(const struct astra_ir *ir, const struct astra_kernel *k, const char *type, int tile,
			    const struct astra_contract_rb *rb, struct astra_buf *out, struct astra_buf *why)
{
	struct nw w;
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t j, tile_start, sig = k->body_start > k->start ? k->body_start - k->start : 0;
	const char *K = ir->inner;

	memset(&w, 0, sizeof(w));
	w.ir = ir;
	w.k = k;
	w.why = why;
	if (check(&w) < 0)
		goto out;
	if (!rb && (ir->mapping != IR_MAP_2D || ir->cols_first)) {
		astra_nest_refuse(&w, 0, "a thread per row's contraction or a triangle is lowered register-blocked only");
		goto out;
	}
	if (rb) {
		contract_rb(&w, type, rb, &b);
		if (!w.bad) {
			astra_buf_add(out, k->text, sig);
			astra_buf_add(out, b.buf, b.len);
		}
		goto out;
	}
	astra_buf_adds(&b, "{\n");
	for (j = 0; j < w.nr_ops; j++)
		astra_buf_addf(&b, "\t__shared__ %s astra_t%zu[%d][%d];\n", type, j, tile, tile + 1);
	/* the output's tiles, grid-stride in both directions: any grid covers them */
	astra_buf_addf(&b, "\tfor (int astra_tr = blockIdx.y; astra_tr * %d < (%s); astra_tr += gridDim.y)\n", tile,
		       ir->rows);
	astra_buf_addf(&b, "\tfor (int astra_tc = blockIdx.x; astra_tc * %d < (%s); astra_tc += gridDim.x) {\n", tile,
		       ir->cols);
	tile_start = b.len;
	astra_buf_addf(&b, "\tconst int astra_r = astra_tr * %d + threadIdx.y;\n", tile);
	astra_buf_addf(&b, "\tconst int astra_c = astra_tc * %d + threadIdx.x;\n", tile);
	astra_buf_addf(&b, "\tconst bool astra_in = astra_r < (%s) && astra_c < (%s);\n", ir->rows, ir->cols);
	astra_buf_addf(&b, "\t%s astra_acc = 0;\n", type);
	w.name_r = "astra_r";
	w.name_c = "astra_c";
	if (w.red->nr > 1) {
		astra_buf_adds(&b, "\tif (astra_in)\n\t\tastra_acc = ");
		astra_nest_emit(&w, w.red->a[1], &b);
		astra_buf_adds(&b, ";\n");
	}
	astra_buf_addf(&b, "\tfor (int astra_k0 = 0; astra_k0 < (%s); astra_k0 += %d) {\n", K, tile);
	for (j = 0; j < w.nr_ops; j++) {
		const struct operand *o = &w.ops[j];
		/* the unit-stride index on threadIdx.x: consecutive threads load consecutive elements */
		const char *to = o->k_unit ? "y" : "x", *tk = o->k_unit ? "x" : "y";
		const char *ext = !strcmp(o->outer, "r") ? ir->rows : ir->cols;
		astra_buf_adds(&b, "\t\t{\n");
		astra_buf_addf(&b, "\t\t\tconst int astra_o = astra_t%s * %d + threadIdx.%s;\n",
			       !strcmp(o->outer, "r") ? "r" : "c", tile, to);
		astra_buf_addf(&b, "\t\t\tconst int astra_k = astra_k0 + threadIdx.%s;\n", tk);
		astra_buf_addf(&b, "\t\t\tastra_t%zu[threadIdx.%s][threadIdx.%s] = astra_o < (%s) && astra_k < (%s) ? ", j, to,
			       tk, ext, K);
		w.name_r = !strcmp(o->outer, "r") ? "astra_o" : NULL;
		w.name_c = !strcmp(o->outer, "c") ? "astra_o" : NULL;
		w.name_k = "astra_k";
		astra_nest_emit(&w, o->load, &b);
		astra_buf_adds(&b, " : 0;\n\t\t}\n");
	}
	astra_buf_adds(&b, "\t\t__syncthreads();\n");
	astra_buf_addf(&b, "\t\tconst int astra_kn = (%s) - astra_k0 < %d ? (%s) - astra_k0 : %d;\n", K, tile, K, tile);
	astra_buf_adds(&b, "\t\tfor (int astra_kk = 0; astra_kk < astra_kn; astra_kk++)\n\t\t\tastra_acc = astra_acc + ");
	w.name_r = "astra_r";
	w.name_c = "astra_c";
	w.name_k = "(astra_k0 + astra_kk)";
	w.tiles = 1;
	astra_nest_emit(&w, w.red->a[0], &b);
	w.tiles = 0;
	w.name_k = NULL;
	astra_buf_adds(&b, ";\n\t\t__syncthreads();\n\t}\n\tif (astra_in) {\n");
	astra_nest_emit_stores(&w, type, "\t\t", NULL, &b);
	astra_buf_adds(&b, "\t}\n");
	if (!w.bad) {
		/* the tile's body one level in */
		astra_buf_add(out, k->text, sig);
		astra_buf_add(out, b.buf, tile_start);
		for (j = tile_start; j < b.len; j++) {
			if (j == tile_start || b.buf[j - 1] == '\n')
				astra_buf_addch(out, '\t');
			astra_buf_addch(out, b.buf[j]);
		}
		astra_buf_adds(out, "\t}\n}\n");
	}
out:
	astra_buf_release(&b);
	astra_ir_arena_release(&w.ar);
	return w.bad ? -1 : 0;
}

