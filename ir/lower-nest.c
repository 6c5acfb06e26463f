/*
 * lower-nest.c - code from the IR for loop nests with reuse (see
 * lower.h): a contraction, out[r, c] = f(sum_k(g(A[r, k], B[k, c], ...))),
 * lowered to a shared-memory tiled kernel.
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
#include "ir/print.h"
#include "lib/util.h"

#define MAX_OPERANDS 4
#define MAX_LOADS 32
/* register blocking: 16 x 16 threads, each RB_N x RB_N outputs RB_T apart; k in steps of RB_K */
#define RB_T 16
#define RB_N 4
#define RB_K 16

struct operand {
	const struct astra_ir_node *load;
	const char *outer;           /* "r" or "c" */
	int k_unit;                  /* the index has unit stride in k: threadIdx.x walks k when loading */
};

struct nw {
	const struct astra_ir *ir;
	const struct astra_kernel *k;
	const struct astra_ir_node *red;
	unsigned red_line;
	struct operand ops[MAX_OPERANDS];
	size_t nr_ops;
	struct astra_ir_arena ar;
	struct astra_buf *why;
	int bad;
	/* while emitting: the C names of the logical indices, and whether loads of the sum read tiles */
	const char *name_r, *name_c, *name_k;
	int tiles;                   /* 1: a thread's tile row or column; 2: register-blocked */
	const char *acc;             /* the sum's register, "astra_acc" if NULL */
	/* a stencil's loads read from its halo tiles: each load, the text it becomes */
	const struct astra_ir_node *rep_load[MAX_LOADS];
	char *rep_text[MAX_LOADS];
	size_t nr_rep;
};

static void refuse(struct nw *w, unsigned line, const char *what)
{
	if (!w->bad) {
		if (line)
			astra_buf_addf(w->why, "%s:%u: ", w->k->file ? w->k->file : "?", line);
		astra_buf_adds(w->why, what);
	}
	w->bad = 1;
}

static int depends(const struct astra_ir_node *n, const char *atom)
{
	size_t j;
	if (n->kind == IR_ATOM && !strcmp(n->s, atom))
		return 1;
	for (j = 0; j < n->nr; j++)
		if (depends(n->a[j], atom))
			return 1;
	return 0;
}

static int has_kind(const struct astra_ir_node *n, enum astra_ir_kind kind)
{
	size_t j;
	if (n->kind == kind)
		return 1;
	for (j = 0; j < n->nr; j++)
		if (has_kind(n->a[j], kind))
			return 1;
	return 0;
}

static int same_expr(const struct astra_ir_node *a, const struct astra_ir_node *b)
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
static struct astra_ir_node *subst(struct nw *w, const struct astra_ir_node *n, const char *from,
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
			c->a[j] = subst(w, n->a[j], from, to);
	}
	return c;
}

/* Does index n advance by 1 when k does? */
static int unit_in(struct nw *w, const struct astra_ir_node *n, const char *atom)
{
	struct astra_ir_node *k1 = astra_ir_node(&w->ar, IR_BIN, "+", 2, astra_ir_node(&w->ar, IR_ATOM, atom, 0),
						 astra_ir_node(&w->ar, IR_NUM, "1", 0));
	struct astra_ir_node *d = astra_ir_node(&w->ar, IR_BIN, "-", 2, subst(w, n, atom, k1), (struct astra_ir_node *)n);
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
			refuse(w, line, "a reduction that is not over k");
			return;
		}
		if (w->red && !same_expr(w->red, n)) {
			refuse(w, line, "two different sums over k");
			return;
		}
		w->red = n;
		w->red_line = line;
		if (n->nr > 1)
			find_red(w, n->a[1], line);   /* a seed holds no second reduction */
		if (has_kind(n->a[0], IR_RED))
			refuse(w, line, "a reduction inside the sum over k");
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
		int dr = depends(n->a[0], "r"), dc = depends(n->a[0], "c"), dk = depends(n->a[0], "k");
		if (has_kind(n->a[0], IR_LOAD)) {
			refuse(w, w->red_line, "a gather inside the sum over k (an index read from memory)");
			return;
		}
		if (!dk) {
			refuse(w, w->red_line, "a load inside the sum over k that does not depend on k");
			return;
		}
		if (dr == dc) {
			refuse(w, w->red_line, dr ? "a load inside the sum over k that depends on r, c and k" :
					       "a load inside the sum over k that depends on k alone (a vector)");
			return;
		}
		for (j = 0; j < w->nr_ops; j++)
			if (same_expr(w->ops[j].load, n))
				return;
		if (w->nr_ops == MAX_OPERANDS) {
			refuse(w, w->red_line, "more than four operands in the sum over k");
			return;
		}
		w->ops[w->nr_ops].load = n;
		w->ops[w->nr_ops].outer = dr ? "r" : "c";
		w->ops[w->nr_ops].k_unit = unit_in(w, n->a[0], "k");
		w->nr_ops++;
		return;
	}
	for (j = 0; j < n->nr; j++)
		find_operands(w, n->a[j]);
}

/* Does n load buf at an index other than `at`? */
static int loads_elsewhere(const struct astra_ir_node *n, const char *buf, const struct astra_ir_node *at)
{
	size_t j;
	if (n->kind == IR_LOAD && !strcmp(n->s, buf) && !same_expr(n->a[0], at))
		return 1;
	for (j = 0; j < n->nr; j++)
		if (loads_elsewhere(n->a[j], buf, at))
			return 1;
	return 0;
}

static void emit(struct nw *w, const struct astra_ir_node *n, struct astra_buf *out)
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
			refuse(w, 0, "a value of a thread index");
		return;
	case IR_LOAD:
		for (j = 0; j < w->nr_rep; j++)
			if (same_expr(w->rep_load[j], n)) {
				astra_buf_adds(out, w->rep_text[j]);
				return;
			}
		if (w->tiles)
			for (j = 0; j < w->nr_ops; j++)
				if (same_expr(w->ops[j].load, n)) {
					int r = !strcmp(w->ops[j].outer, "r");
					if (w->tiles == 2)   /* register-blocked: this thread's i-th row, j-th column */
						astra_buf_addf(out, "astra_t%zu[threadIdx.%s + %d * astra_%s][astra_kk]", j,
							       r ? "y" : "x", RB_T, r ? "i" : "j");
					else
						astra_buf_addf(out, "astra_t%zu[threadIdx.%s][astra_kk]", j, r ? "y" : "x");
					return;
				}
		astra_buf_addf(out, "%s[", n->s);
		emit(w, n->a[0], out);
		astra_buf_addch(out, ']');
		return;
	case IR_BIN:
		astra_buf_addch(out, '(');
		emit(w, n->a[0], out);
		astra_buf_addf(out, " %s ", n->s);
		emit(w, n->a[1], out);
		astra_buf_addch(out, ')');
		return;
	case IR_UN:
		astra_buf_addf(out, "(%s", n->s);
		emit(w, n->a[0], out);
		astra_buf_addch(out, ')');
		return;
	case IR_COND:
		astra_buf_addch(out, '(');
		emit(w, n->a[0], out);
		astra_buf_adds(out, " ? ");
		emit(w, n->a[1], out);
		astra_buf_adds(out, " : ");
		emit(w, n->a[2], out);
		astra_buf_addch(out, ')');
		return;
	case IR_CALL:
		astra_buf_addf(out, "%s(", n->s);
		for (j = 0; j < n->nr; j++) {
			if (j)
				astra_buf_adds(out, ", ");
			emit(w, n->a[j], out);
		}
		astra_buf_addch(out, ')');
		return;
	case IR_RED:
		if (n == w->red || same_expr(n, w->red))
			astra_buf_adds(out, w->acc ? w->acc : "astra_acc");
		else
			refuse(w, 0, "a reduction the lowering did not collect");
		return;
	default:
		refuse(w, 0, "a node the lowering does not emit");
		return;
	}
}

static int check(struct nw *w)
{
	const struct astra_ir *ir = w->ir;
	size_t j, m;
	if (ir->mapping != IR_MAP_2D || !ir->rows || !ir->cols || !ir->inner) {
		refuse(w, 0, "not a contraction of a 2-D grid (a thread per out[r, c] and a loop over k)");
		return -1;
	}
	if (ir->rows_lo || ir->cols_lo) {
		refuse(w, 0, "rows or columns that do not start at 0");
		return -1;
	}
	for (j = 0; j < ir->nr_stores && !w->bad; j++) {
		const struct astra_ir_store *s = &ir->stores[j];
		if (s->accumulate)
			refuse(w, s->line, "an atomic store");
		else if (depends(s->index, "k"))
			refuse(w, s->line, "a store whose place depends on k");
		for (m = 0; m < ir->nr_stores && !w->bad; m++)
			if (loads_elsewhere(ir->stores[m].value, s->buf, s->index))
				refuse(w, s->line, "a stored buffer is read at another place");
		if (!w->bad)
			find_red(w, s->value, s->line);
	}
	if (!w->bad && !w->red)
		refuse(w, ir->stores[0].line, "no sum over k");
	if (!w->bad && strcmp(w->red->s, "sum"))
		refuse(w, w->red_line, "a maximum or minimum over k (only sums are tiled)");
	if (!w->bad)
		find_operands(w, w->red->a[0]);
	if (!w->bad && !w->nr_ops)
		refuse(w, w->red_line, "no load inside the sum over k");
	return w->bad ? -1 : 0;
}

/*
 * Register-blocked: each block computes a 64 x 64 tile of the output, each
 * of its 16 x 16 threads a 4 x 4 block of it, rows threadIdx.y + 16 i and
 * columns threadIdx.x + 16 j (so the stores and the tiles' reads stay
 * consecutive across a warp); k in steps of 16, each operand staged in a
 * 64 x 17 tile (four elements per thread, the unit-stride index across
 * consecutive threads).  Each output's additions are still the original's,
 * in its order of k.
 */
static void contract_rb(struct nw *w, const char *type, struct astra_buf *b)
{
	const struct astra_ir *ir = w->ir;
	const int bt = RB_T * RB_N;
	size_t j;
	astra_buf_adds(b, "{\n");
	for (j = 0; j < w->nr_ops; j++)
		astra_buf_addf(b, "\t__shared__ %s astra_t%zu[%d][%d];\n", type, j, bt, RB_K + 1);
	astra_buf_addf(b, "\tconst int astra_t = threadIdx.y * %d + threadIdx.x;\n", RB_T);
	astra_buf_addf(b, "\tfor (int astra_tr = blockIdx.y; astra_tr * %d < (%s); astra_tr += gridDim.y)\n", bt, ir->rows);
	astra_buf_addf(b, "\tfor (int astra_tc = blockIdx.x; astra_tc * %d < (%s); astra_tc += gridDim.x) {\n", bt, ir->cols);
	astra_buf_addf(b, "\t\t%s astra_acc[%d][%d];\n", type, RB_N, RB_N);
	astra_buf_addf(b, "#pragma unroll\n\t\tfor (int astra_i = 0; astra_i < %d; astra_i++)\n", RB_N);
	astra_buf_addf(b, "#pragma unroll\n\t\tfor (int astra_j = 0; astra_j < %d; astra_j++) {\n", RB_N);
	astra_buf_addf(b, "\t\t\tconst int astra_r = astra_tr * %d + threadIdx.y + %d * astra_i;\n", bt, RB_T);
	astra_buf_addf(b, "\t\t\tconst int astra_c = astra_tc * %d + threadIdx.x + %d * astra_j;\n", bt, RB_T);
	astra_buf_adds(b, "\t\t\tastra_acc[astra_i][astra_j] = 0;\n");
	w->name_r = "astra_r";
	w->name_c = "astra_c";
	if (w->red->nr > 1) {
		astra_buf_addf(b, "\t\t\tif (astra_r < (%s) && astra_c < (%s))\n\t\t\t\tastra_acc[astra_i][astra_j] = ",
			       ir->rows, ir->cols);
		emit(w, w->red->a[1], b);
		astra_buf_adds(b, ";\n");
	}
	astra_buf_adds(b, "\t\t}\n");
	astra_buf_addf(b, "\t\tfor (int astra_k0 = 0; astra_k0 < (%s); astra_k0 += %d) {\n", ir->inner, RB_K);
	for (j = 0; j < w->nr_ops; j++) {
		const struct operand *o = &w->ops[j];
		int r = !strcmp(o->outer, "r");
		astra_buf_addf(b, "#pragma unroll\n\t\t\tfor (int astra_e = astra_t; astra_e < %d; astra_e += %d) {\n",
			       bt * RB_K, RB_T * RB_T);
		/* the unit-stride index across consecutive threads */
		astra_buf_addf(b, "\t\t\t\tconst int astra_ol = astra_e %s %d, astra_kl = astra_e %s %d;\n",
			       o->k_unit ? "/" : "%", o->k_unit ? RB_K : bt, o->k_unit ? "%" : "/", o->k_unit ? RB_K : bt);
		astra_buf_addf(b, "\t\t\t\tconst int astra_o = astra_t%s * %d + astra_ol, astra_k = astra_k0 + astra_kl;\n",
			       r ? "r" : "c", bt);
		astra_buf_addf(b, "\t\t\t\tastra_t%zu[astra_ol][astra_kl] = astra_o < (%s) && astra_k < (%s) ? ", j,
			       r ? ir->rows : ir->cols, ir->inner);
		w->name_r = r ? "astra_o" : NULL;
		w->name_c = r ? NULL : "astra_o";
		w->name_k = "astra_k";
		emit(w, o->load, b);
		astra_buf_adds(b, " : 0;\n\t\t\t}\n");
	}
	astra_buf_adds(b, "\t\t\t__syncthreads();\n");
	astra_buf_addf(b, "\t\t\tconst int astra_kn = (%s) - astra_k0 < %d ? (%s) - astra_k0 : %d;\n", ir->inner, RB_K,
		       ir->inner, RB_K);
	astra_buf_adds(b, "\t\t\tfor (int astra_kk = 0; astra_kk < astra_kn; astra_kk++)\n");
	astra_buf_addf(b, "#pragma unroll\n\t\t\t\tfor (int astra_i = 0; astra_i < %d; astra_i++)\n", RB_N);
	astra_buf_addf(b, "#pragma unroll\n\t\t\t\tfor (int astra_j = 0; astra_j < %d; astra_j++)\n", RB_N);
	astra_buf_adds(b, "\t\t\t\t\tastra_acc[astra_i][astra_j] = astra_acc[astra_i][astra_j] + ");
	w->name_r = "(astra_tr * 64 + threadIdx.y + 16 * astra_i)";
	w->name_c = "(astra_tc * 64 + threadIdx.x + 16 * astra_j)";
	w->name_k = "(astra_k0 + astra_kk)";
	w->tiles = 2;
	emit(w, w->red->a[0], b);
	w->tiles = 0;
	w->name_k = NULL;
	astra_buf_adds(b, ";\n\t\t\t__syncthreads();\n\t\t}\n");
	astra_buf_addf(b, "#pragma unroll\n\t\tfor (int astra_i = 0; astra_i < %d; astra_i++)\n", RB_N);
	astra_buf_addf(b, "#pragma unroll\n\t\tfor (int astra_j = 0; astra_j < %d; astra_j++) {\n", RB_N);
	astra_buf_addf(b, "\t\t\tconst int astra_r = astra_tr * %d + threadIdx.y + %d * astra_i;\n", bt, RB_T);
	astra_buf_addf(b, "\t\t\tconst int astra_c = astra_tc * %d + threadIdx.x + %d * astra_j;\n", bt, RB_T);
	astra_buf_addf(b, "\t\t\tif (astra_r < (%s) && astra_c < (%s)) {\n", ir->rows, ir->cols);
	astra_buf_adds(b, "\t\t\t\tconst ");
	w->name_r = "astra_r";
	w->name_c = "astra_c";
	w->acc = "astra_acc[astra_i][astra_j]";
	for (j = 0; j < ir->nr_stores; j++) {
		astra_buf_addf(b, "%s%s astra_v%zu = ", j ? "\t\t\t\tconst " : "", type, j);
		emit(w, ir->stores[j].value, b);
		astra_buf_adds(b, ";\n");
	}
	for (j = 0; j < ir->nr_stores; j++) {
		astra_buf_addf(b, "\t\t\t\t%s[", ir->stores[j].buf);
		emit(w, ir->stores[j].index, b);
		astra_buf_addf(b, "] = astra_v%zu;\n", j);
	}
	w->acc = NULL;
	astra_buf_adds(b, "\t\t\t}\n\t\t}\n\t}\n}\n");
}

int astra_ir_lower_contract(const struct astra_ir *ir, const struct astra_kernel *k, const char *type, int tile,
			    struct astra_buf *out, struct astra_buf *why)
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
	if (!tile) {
		contract_rb(&w, type, &b);
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
		emit(&w, w.red->a[1], &b);
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
		emit(&w, o->load, &b);
		astra_buf_adds(&b, " : 0;\n\t\t}\n");
	}
	astra_buf_adds(&b, "\t\t__syncthreads();\n");
	astra_buf_addf(&b, "\t\tconst int astra_kn = (%s) - astra_k0 < %d ? (%s) - astra_k0 : %d;\n", K, tile, K, tile);
	astra_buf_adds(&b, "\t\tfor (int astra_kk = 0; astra_kk < astra_kn; astra_kk++)\n\t\t\tastra_acc = astra_acc + ");
	w.name_r = "astra_r";
	w.name_c = "astra_c";
	w.name_k = "(astra_k0 + astra_kk)";
	w.tiles = 1;
	emit(&w, w.red->a[0], &b);
	w.tiles = 0;
	w.name_k = NULL;
	astra_buf_adds(&b, ";\n\t\t__syncthreads();\n\t}\n\tif (astra_in) {\n");
	for (j = 0; j < ir->nr_stores; j++) {
		astra_buf_addf(&b, "\t\tconst %s astra_v%zu = ", type, j);
		emit(&w, ir->stores[j].value, &b);
		astra_buf_adds(&b, ";\n");
	}
	for (j = 0; j < ir->nr_stores; j++) {
		astra_buf_addf(&b, "\t\t%s[", ir->stores[j].buf);
		emit(&w, ir->stores[j].index, &b);
		astra_buf_addf(&b, "] = astra_v%zu;\n", j);
	}
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

/*
 * A matrix-vector product written a thread per row (PolyBench's atax,
 * bicg, gesummv, mvt): each thread walks its row of the matrix, so where
 * the row is contiguous (A[r * n + c]) the threads of a warp read 32
 * places n elements apart.  Lowered: a warp per row, its lanes taking
 * consecutive columns (coalesced), every sum of the row in one loop, the
 * lanes' parts combined by shuffles, lane 0 storing what the original
 * stores (a sum's start added to the combined parts).  Rows in a
 * grid-stride loop over the warps: any grid of blocks of a multiple of 32
 * threads is correct.
 *
 * Where the matrix is walked by columns (A[c * n + r]) the loads are
 * coalesced already, but there are only `rows` threads each adding `cols`
 * terms one after another.  Lowered: blocks of 32 x ty threads, each
 * taking 32 consecutive rows (threadIdx.x, coalesced as before) and
 * splitting the sum over threadIdx.y (every ty-th column), the ty parts
 * of a row combined through shared memory by the thread of threadIdx.y 0,
 * which stores as the original.  The blocks' 32 rows in a grid-stride
 * loop: any grid of dim3(32, ty) blocks is correct.
 */
static int row_walk(struct nw *w, const struct astra_ir_node *n, int *col_walk)
{
	size_t j;
	int found = 0;
	if (n->kind == IR_LOAD && depends(n->a[0], "r") && depends(n->a[0], "c")) {
		if (unit_in(w, n->a[0], "c"))
			found = 1;
		else if (unit_in(w, n->a[0], "r"))
			*col_walk = 1;
	}
	for (j = 0; j < n->nr; j++)
		found |= row_walk(w, n->a[j], col_walk);
	return found;
}

static void collect_sums(struct nw *w, const struct astra_ir_node *n, const struct astra_ir_node **reds, size_t *nr,
			 unsigned line)
{
	size_t j;
	if (n->kind == IR_RED || n->kind == IR_PARTIAL) {
		if (n->kind == IR_PARTIAL || strcmp(n->axis, "c") || strcmp(n->s, "sum")) {
			refuse(w, line, "a reduction that is not a thread's sum over the row");
			return;
		}
		if (has_kind(n->a[0], IR_RED) || (n->nr > 1 && has_kind(n->a[1], IR_RED))) {
			refuse(w, line, "a sum of a sum");
			return;
		}
		for (j = 0; j < *nr; j++)
			if (same_expr(reds[j], n))
				return;
		if (*nr == MAX_OPERANDS) {
			refuse(w, line, "more than four sums over the row");
			return;
		}
		reds[(*nr)++] = n;
		return;
	}
	for (j = 0; j < n->nr; j++)
		collect_sums(w, n->a[j], reds, nr, line);
}

/* A value with each collected sum as its register (plus its start). */
static void emit_sums(struct nw *w, const struct astra_ir_node *n, const struct astra_ir_node **reds, size_t nr,
		      struct astra_buf *out)
{
	size_t j;
	if (n->kind == IR_RED) {
		for (j = 0; j < nr; j++)
			if (same_expr(reds[j], n)) {
				if (n->nr > 1) {
					astra_buf_adds(out, "(");
					emit(w, n->a[1], out);
					astra_buf_addf(out, " + astra_red%zu)", j);
				} else {
					astra_buf_addf(out, "astra_red%zu", j);
				}
				return;
			}
		refuse(w, 0, "a reduction the lowering did not collect");
		return;
	}
	if (n->kind == IR_NUM || n->kind == IR_NAME || n->kind == IR_ATOM || n->kind == IR_LOAD) {
		emit(w, n, out);
		return;
	}
	switch (n->kind) {
	case IR_BIN:
		astra_buf_addch(out, '(');
		emit_sums(w, n->a[0], reds, nr, out);
		astra_buf_addf(out, " %s ", n->s);
		emit_sums(w, n->a[1], reds, nr, out);
		astra_buf_addch(out, ')');
		return;
	case IR_UN:
		astra_buf_addf(out, "(%s", n->s);
		emit_sums(w, n->a[0], reds, nr, out);
		astra_buf_addch(out, ')');
		return;
	case IR_COND:
		astra_buf_addch(out, '(');
		emit_sums(w, n->a[0], reds, nr, out);
		astra_buf_adds(out, " ? ");
		emit_sums(w, n->a[1], reds, nr, out);
		astra_buf_adds(out, " : ");
		emit_sums(w, n->a[2], reds, nr, out);
		astra_buf_addch(out, ')');
		return;
	case IR_CALL:
		astra_buf_addf(out, "%s(", n->s);
		for (j = 0; j < n->nr; j++) {
			if (j)
				astra_buf_adds(out, ", ");
			emit_sums(w, n->a[j], reds, nr, out);
		}
		astra_buf_addch(out, ')');
		return;
	default:
		refuse(w, 0, "a node the lowering does not emit");
	}
}

/* The stores of a row, from the combined sums, by the thread in charge of the row. */
static void matvec_stores(struct nw *w, const char *type, const struct astra_ir_node **reds, size_t nr,
			  struct astra_buf *b)
{
	const struct astra_ir *ir = w->ir;
	size_t j;
	for (j = 0; j < ir->nr_stores; j++) {
		astra_buf_addf(b, "\t\t\tconst %s astra_v%zu = ", type, j);
		emit_sums(w, ir->stores[j].value, reds, nr, b);
		astra_buf_adds(b, ";\n");
	}
	for (j = 0; j < ir->nr_stores; j++) {
		astra_buf_addf(b, "\t\t\t%s[", ir->stores[j].buf);
		emit(w, ir->stores[j].index, b);
		astra_buf_addf(b, "] = astra_v%zu;\n", j);
	}
}

/* A walk by columns: 32 rows per block on threadIdx.x, the sum split over threadIdx.y. */
static void matvec_cols(struct nw *w, const char *type, int ty, const struct astra_ir_node **reds, size_t nr,
			struct astra_buf *b)
{
	const struct astra_ir *ir = w->ir;
	size_t j;
	astra_buf_adds(b, "{\n");
	for (j = 0; j < nr; j++)
		astra_buf_addf(b, "\t__shared__ %s astra_part%zu[%d][32];\n", type, j, ty);
	astra_buf_addf(b, "\tfor (int astra_r0 = blockIdx.x * 32; astra_r0 < (%s); astra_r0 += gridDim.x * 32) {\n",
		       ir->rows);
	astra_buf_adds(b, "\t\tconst int astra_row = astra_r0 + threadIdx.x;\n");
	for (j = 0; j < nr; j++)
		astra_buf_addf(b, "\t\t%s astra_red%zu = 0;\n", type, j);
	astra_buf_addf(b, "\t\tif (astra_row < (%s))\n", ir->rows);
	astra_buf_addf(b, "\t\t\tfor (int astra_c = threadIdx.y; astra_c < (%s); astra_c += %d) {\n", ir->cols, ty);
	for (j = 0; j < nr; j++) {
		astra_buf_addf(b, "\t\t\t\tastra_red%zu = astra_red%zu + ", j, j);
		emit(w, reds[j]->a[0], b);
		astra_buf_adds(b, ";\n");
	}
	astra_buf_adds(b, "\t\t\t}\n");
	for (j = 0; j < nr; j++)
		astra_buf_addf(b, "\t\tastra_part%zu[threadIdx.y][threadIdx.x] = astra_red%zu;\n", j, j);
	/* the parts of a row, in the order of threadIdx.y, by the row's thread of threadIdx.y 0 */
	astra_buf_addf(b, "\t\t__syncthreads();\n\t\tif (threadIdx.y == 0 && astra_row < (%s)) {\n", ir->rows);
	astra_buf_addf(b, "\t\t\tfor (int astra_y = 1; astra_y < %d; astra_y++) {\n", ty);
	for (j = 0; j < nr; j++)
		astra_buf_addf(b, "\t\t\t\tastra_red%zu = astra_red%zu + astra_part%zu[astra_y][threadIdx.x];\n", j, j, j);
	astra_buf_adds(b, "\t\t\t}\n");
	matvec_stores(w, type, reds, nr, b);
	/* the parts are written again for the block's next rows */
	astra_buf_adds(b, "\t\t}\n\t\t__syncthreads();\n\t}\n}\n");
}

int astra_ir_lower_matvec(const struct astra_ir *ir, const struct astra_kernel *k, const char *type, int ty,
			  int *by_cols, struct astra_buf *out, struct astra_buf *why)
{
	struct nw w;
	struct astra_buf b = ASTRA_BUF_INIT;
	const struct astra_ir_node *reds[MAX_OPERANDS];
	size_t nr = 0, j, m, sig = k->body_start > k->start ? k->body_start - k->start : 0;
	int rows_walked = 0, col_walk = 0;

	memset(&w, 0, sizeof(w));
	w.ir = ir;
	w.k = k;
	w.why = why;
	*by_cols = 0;
	if (ir->mapping != IR_MAP_THREAD_ROW || !ir->rows || !ir->cols || ir->inner)
		refuse(&w, 0, "not a thread per row with a loop over the row's columns");
	else if (ir->rows_lo || ir->cols_lo)
		refuse(&w, 0, "rows or columns that do not start at 0");
	for (j = 0; j < ir->nr_stores && !w.bad; j++) {
		const struct astra_ir_store *s = &ir->stores[j];
		if (s->accumulate)
			refuse(&w, s->line, "an atomic store");
		else if (depends(s->index, "c"))
			refuse(&w, s->line, "a store per column (not a row's result)");
		for (m = 0; m < ir->nr_stores && !w.bad; m++)
			if (loads_elsewhere(ir->stores[m].value, s->buf, s->index))
				refuse(&w, s->line, "a stored buffer is read at another place");
		if (!w.bad)
			collect_sums(&w, s->value, reds, &nr, s->line);
	}
	if (!w.bad && !nr)
		refuse(&w, ir->stores[0].line, "no sum over the row");
	for (j = 0; j < nr && !w.bad; j++)
		rows_walked |= row_walk(&w, reds[j]->a[0], &col_walk);
	if (!w.bad && !rows_walked && !col_walk)
		refuse(&w, ir->stores[0].line, "no matrix read along its rows (A[r * n + c]) or columns (A[c * n + r]) "
					       "in the sums");
	if (w.bad)
		goto out;
	w.name_r = "astra_row";
	w.name_c = "astra_c";
	*by_cols = !rows_walked;
	if (!rows_walked) {
		matvec_cols(&w, type, ty, reds, nr, &b);
		goto done;
	}
	astra_buf_adds(&b, "{\n\tconst int astra_lane = threadIdx.x & 31;\n");
	astra_buf_adds(&b, "\tconst int astra_warps = (blockDim.x >> 5) * gridDim.x;\n");
	astra_buf_addf(&b, "\tfor (int astra_row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; astra_row < (%s); "
			   "astra_row += astra_warps) {\n", ir->rows);
	for (j = 0; j < nr; j++)
		astra_buf_addf(&b, "\t\t%s astra_red%zu = 0;\n", type, j);
	astra_buf_addf(&b, "\t\tfor (int astra_c = astra_lane; astra_c < (%s); astra_c += 32) {\n", ir->cols);
	for (j = 0; j < nr; j++) {
		astra_buf_addf(&b, "\t\t\tastra_red%zu = astra_red%zu + ", j, j);
		emit(&w, reds[j]->a[0], &b);
		astra_buf_adds(&b, ";\n");
	}
	astra_buf_adds(&b, "\t\t}\n\t\tfor (int astra_o = 16; astra_o > 0; astra_o >>= 1) {\n");
	for (j = 0; j < nr; j++)
		astra_buf_addf(&b, "\t\t\tastra_red%zu = astra_red%zu + __shfl_xor_sync(0xffffffffu, astra_red%zu, astra_o);\n",
			       j, j, j);
	astra_buf_adds(&b, "\t\t}\n\t\tif (astra_lane == 0) {\n");
	matvec_stores(&w, type, reds, nr, &b);
	astra_buf_adds(&b, "\t\t}\n\t}\n}\n");
done:
	if (!w.bad) {
		astra_buf_add(out, k->text, sig);
		astra_buf_add(out, b.buf, b.len);
	}
out:
	astra_buf_release(&b);
	astra_ir_arena_release(&w.ar);
	return w.bad ? -1 : 0;
}

/*
 * A stencil: a thread per element of a 2-D grid, each output a function
 * of an input read at neighbouring places (out[r, c] = f(in[r - 1 .. r + 1,
 * c - 1 .. c + 1])), PolyBench's jacobi-2d, convolution-2d, fdtd-2d.  Each
 * input read at several shifted places is staged once per 32 x 8 block in
 * a shared tile with its halo (the shifts' extent around the block), by
 * all the block's threads, only the elements some guarded thread of the
 * original reads (no read the original does not do); the outputs are
 * then computed from the tiles as the original computes them, under its
 * guard.  The block's tiles of the output in grid-stride loops: any 2-D
 * grid of 32 x 8 blocks covers it.
 */
#define HALO 2
#define STX 32
#define STY 8

struct stbuf {
	const char *buf;
	const struct astra_ir_node *f0;      /* the first load's index: the tile's frame */
	int dr[MAX_LOADS], dc[MAX_LOADS];    /* the distinct shifts from f0 */
	size_t nr;
	int lo_r, hi_r, lo_c, hi_c;
	int tiled;
};

static struct astra_ir_node *shifted(struct nw *w, const struct astra_ir_node *f, int dr, int dc)
{
	char nr[16], nc[16];
	struct astra_ir_node *r, *c;
	snprintf(nr, sizeof(nr), "%d", dr);
	snprintf(nc, sizeof(nc), "%d", dc);
	r = astra_ir_node(&w->ar, IR_BIN, "+", 2, astra_ir_node(&w->ar, IR_ATOM, "r", 0),
			  astra_ir_node(&w->ar, IR_NUM, astra_ir_strdup(&w->ar, nr, strlen(nr)), 0));
	c = astra_ir_node(&w->ar, IR_BIN, "+", 2, astra_ir_node(&w->ar, IR_ATOM, "c", 0),
			  astra_ir_node(&w->ar, IR_NUM, astra_ir_strdup(&w->ar, nc, strlen(nc)), 0));
	/* replace c first: r's replacement holds an atom r, not c */
	return subst(w, subst(w, f, "c", c), "r", r);
}

/* Is load index f the index f0 shifted by (dr, dc) in [-HALO, HALO]? */
static int shift_of(struct nw *w, const struct astra_ir_node *f, const struct astra_ir_node *f0, int *dr, int *dc)
{
	int i, j;
	for (i = -HALO; i <= HALO; i++)
		for (j = -HALO; j <= HALO; j++) {
			struct astra_ir_node *d = astra_ir_node(&w->ar, IR_BIN, "-", 2, (struct astra_ir_node *)f,
								shifted(w, f0, i, j));
			struct astra_buf t = ASTRA_BUF_INIT;
			int zero;
			astra_ir_print_poly(d, &t);
			zero = t.len && !strcmp(t.buf, "0");
			astra_buf_release(&t);
			if (zero) {
				*dr = i;
				*dc = j;
				return 1;
			}
		}
	return 0;
}

static void stencil_loads(struct nw *w, const struct astra_ir_node *n, struct stbuf *bufs, size_t *nr_bufs,
			  unsigned line)
{
	size_t j, m;
	if (n->kind == IR_RED || n->kind == IR_PARTIAL) {
		refuse(w, line, "a reduction in a stencil");
		return;
	}
	if (n->kind == IR_LOAD) {
		struct stbuf *b = NULL;
		int dr, dc;
		if (has_kind(n->a[0], IR_LOAD)) {
			refuse(w, line, "a gather (an index read from memory)");
			return;
		}
		if (!depends(n->a[0], "r") || !depends(n->a[0], "c") || !unit_in(w, n->a[0], "c"))
			return;   /* read directly */
		for (j = 0; j < *nr_bufs; j++)
			if (!strcmp(bufs[j].buf, n->s))
				b = &bufs[j];
		if (!b) {
			if (*nr_bufs == MAX_OPERANDS) {
				refuse(w, line, "more than four inputs read at shifted places");
				return;
			}
			b = &bufs[(*nr_bufs)++];
			memset(b, 0, sizeof(*b));
			b->buf = n->s;
			b->f0 = n->a[0];
		}
		if (!shift_of(w, n->a[0], b->f0, &dr, &dc)) {
			refuse(w, line, "reads of one input that are not shifts of each other by at most 2 rows and columns");
			return;
		}
		for (m = 0; m < b->nr; m++)
			if (b->dr[m] == dr && b->dc[m] == dc)
				return;
		if (b->nr == MAX_LOADS) {
			refuse(w, line, "too many shifted reads of one input");
			return;
		}
		b->dr[b->nr] = dr;
		b->dc[b->nr++] = dc;
		return;
	}
	for (j = 0; j < n->nr; j++)
		stencil_loads(w, n->a[j], bufs, nr_bufs, line);
}

/* The loads of b in n become reads of its tile. */
static void tile_reads(struct nw *w, const struct astra_ir_node *n, const struct stbuf *b, size_t t)
{
	size_t j;
	int dr, dc;
	if (n->kind == IR_LOAD && !strcmp(n->s, b->buf) && depends(n->a[0], "r") && depends(n->a[0], "c") &&
	    w->nr_rep < MAX_LOADS && shift_of(w, n->a[0], b->f0, &dr, &dc)) {
		w->rep_load[w->nr_rep] = n;
		w->rep_text[w->nr_rep++] = xasprintf("astra_s%zu[threadIdx.y + %d][threadIdx.x + %d]", t, dr - b->lo_r,
						     dc - b->lo_c);
		return;
	}
	for (j = 0; j < n->nr; j++)
		tile_reads(w, n->a[j], b, t);
}

int astra_ir_lower_stencil(const struct astra_ir *ir, const struct astra_kernel *k, const char *type,
			   struct astra_buf *out, struct astra_buf *why)
{
	struct nw w;
	struct astra_buf b = ASTRA_BUF_INIT;
	struct stbuf bufs[MAX_OPERANDS];
	size_t nr_bufs = 0, j, m, t, ntiled = 0, sig = k->body_start > k->start ? k->body_start - k->start : 0;
	const char *rlo = ir->rows_lo ? ir->rows_lo : "0", *clo = ir->cols_lo ? ir->cols_lo : "0";

	memset(&w, 0, sizeof(w));
	w.ir = ir;
	w.k = k;
	w.why = why;
	if (ir->mapping != IR_MAP_2D || !ir->rows || !ir->cols || ir->inner)
		refuse(&w, 0, "not a 2-D grid with a thread per element and no loop");
	for (j = 0; j < ir->nr_stores && !w.bad; j++) {
		const struct astra_ir_store *s = &ir->stores[j];
		if (s->accumulate)
			refuse(&w, s->line, "an atomic store");
		else if (!depends(s->index, "r") || !depends(s->index, "c"))
			refuse(&w, s->line, "a store that is not per element");
		for (m = 0; m < ir->nr_stores && !w.bad; m++)
			if (loads_elsewhere(ir->stores[m].value, s->buf, s->index))
				refuse(&w, s->line, "a stored buffer is read at another place (an update in place)");
		if (!w.bad)
			stencil_loads(&w, s->value, bufs, &nr_bufs, s->line);
	}
	for (j = 0; j < nr_bufs && !w.bad; j++) {
		struct stbuf *sb = &bufs[j];
		for (m = 0; m < ir->nr_stores; m++)
			if (!strcmp(ir->stores[m].buf, sb->buf))
				break;
		sb->tiled = sb->nr > 1 && m == ir->nr_stores;
		sb->lo_r = sb->hi_r = sb->lo_c = sb->hi_c = 0;
		for (m = 0; m < sb->nr; m++) {
			sb->lo_r = sb->dr[m] < sb->lo_r ? sb->dr[m] : sb->lo_r;
			sb->hi_r = sb->dr[m] > sb->hi_r ? sb->dr[m] : sb->hi_r;
			sb->lo_c = sb->dc[m] < sb->lo_c ? sb->dc[m] : sb->lo_c;
			sb->hi_c = sb->dc[m] > sb->hi_c ? sb->dc[m] : sb->hi_c;
		}
		ntiled += sb->tiled;
	}
	if (!w.bad && !ntiled)
		refuse(&w, ir->nr_stores ? ir->stores[0].line : 0,
		       "no input read at several neighbouring places (nothing a tile would reuse)");
	if (w.bad)
		goto out;
	astra_buf_adds(&b, "{\n");
	for (j = 0, t = 0; j < nr_bufs; j++)
		if (bufs[j].tiled) {
			astra_buf_addf(&b, "\t__shared__ %s astra_s%zu[%d][%d];\n", type, t, STY + bufs[j].hi_r - bufs[j].lo_r,
				       STX + bufs[j].hi_c - bufs[j].lo_c);
			t++;
		}
	astra_buf_adds(&b, "\tconst int astra_t = threadIdx.y * 32 + threadIdx.x;\n");
	astra_buf_addf(&b, "\tfor (int astra_tr = blockIdx.y; astra_tr * %d < (%s); astra_tr += gridDim.y)\n", STY, ir->rows);
	astra_buf_addf(&b, "\tfor (int astra_tc = blockIdx.x; astra_tc * %d < (%s); astra_tc += gridDim.x) {\n", STX, ir->cols);
	astra_buf_addf(&b, "\t\tconst int astra_r = astra_tr * %d + threadIdx.y;\n", STY);
	astra_buf_addf(&b, "\t\tconst int astra_c = astra_tc * %d + threadIdx.x;\n", STX);
	astra_buf_addf(&b, "\t\tconst bool astra_in = astra_r >= (%s) && astra_r < (%s) && astra_c >= (%s) && astra_c < (%s);\n",
		       rlo, ir->rows, clo, ir->cols);
	for (j = 0, t = 0; j < nr_bufs; j++) {
		const struct stbuf *sb = &bufs[j];
		int th = STY + sb->hi_r - sb->lo_r, tw = STX + sb->hi_c - sb->lo_c;
		if (!sb->tiled)
			continue;
		astra_buf_addf(&b, "\t\tfor (int astra_e = astra_t; astra_e < %d; astra_e += %d) {\n", th * tw, STX * STY);
		astra_buf_addf(&b, "\t\t\tconst int astra_R = astra_tr * %d + astra_e / %d + (%d);\n", STY, tw, sb->lo_r);
		astra_buf_addf(&b, "\t\t\tconst int astra_C = astra_tc * %d + astra_e %% %d + (%d);\n", STX, tw, sb->lo_c);
		/* only what a guarded thread of the original reads */
		astra_buf_adds(&b, "\t\t\tif (");
		for (m = 0; m < sb->nr; m++)
			astra_buf_addf(&b, "%s(astra_R - (%d) >= (%s) && astra_R - (%d) < (%s) && astra_C - (%d) >= (%s) && "
					   "astra_C - (%d) < (%s))", m ? "\n\t\t\t    || " : "", sb->dr[m], rlo, sb->dr[m],
				       ir->rows, sb->dc[m], clo, sb->dc[m], ir->cols);
		astra_buf_addf(&b, ")\n\t\t\t\tastra_s%zu[astra_e / %d][astra_e %% %d] = ", t, tw, tw);
		w.name_r = "astra_R";
		w.name_c = "astra_C";
		astra_buf_addf(&b, "%s[", sb->buf);
		emit(&w, sb->f0, &b);
		astra_buf_adds(&b, "];\n\t\t}\n");
		t++;
	}
	astra_buf_adds(&b, "\t\t__syncthreads();\n\t\tif (astra_in) {\n");
	for (j = 0, t = 0; j < nr_bufs; j++)
		if (bufs[j].tiled) {
			for (m = 0; m < ir->nr_stores; m++)
				tile_reads(&w, ir->stores[m].value, &bufs[j], t);
			t++;
		}
	w.name_r = "astra_r";
	w.name_c = "astra_c";
	for (j = 0; j < ir->nr_stores; j++) {
		astra_buf_addf(&b, "\t\t\tconst %s astra_v%zu = ", type, j);
		emit(&w, ir->stores[j].value, &b);
		astra_buf_adds(&b, ";\n");
	}
	for (j = 0; j < ir->nr_stores; j++) {
		astra_buf_addf(&b, "\t\t\t%s[", ir->stores[j].buf);
		emit(&w, ir->stores[j].index, &b);
		astra_buf_addf(&b, "] = astra_v%zu;\n", j);
	}
	astra_buf_adds(&b, "\t\t}\n\t\t__syncthreads();\n\t}\n}\n");
	if (!w.bad) {
		astra_buf_add(out, k->text, sig);
		astra_buf_add(out, b.buf, b.len);
	}
out:
	for (j = 0; j < w.nr_rep; j++)
		free(w.rep_text[j]);
	astra_buf_release(&b);
	astra_ir_arena_release(&w.ar);
	return w.bad ? -1 : 0;
}
