/*
 * lower.c - code from the IR (see lower.h): the first lowering of issue
 * 27, for rows x columns computations whose rows are reduced.
 *
 * The kernel a lifted row computation becomes: a block per row, the
 * columns spread over the block's threads by a block-stride loop (so a
 * thread takes several elements when the row is longer than the block,
 * whatever block the launch sets), each reduction of the row in its own
 * loop followed by a block all-reduce (warp shuffles and per-warp partials,
 * the caller's helper), innermost reductions first; then one loop that
 * computes every stored value of a column before it stores any.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "ir/lower.h"
#include "lib/util.h"

struct lw {
	const struct astra_ir *ir;
	const struct astra_ir_node **reds;
	size_t nr_reds, alloc_reds;
	struct astra_buf *why;
	int bad;
};

static void refuse(struct lw *w, const char *what)
{
	if (!w->bad)
		astra_buf_adds(w->why, what);
	w->bad = 1;
}

static long red_index(struct lw *w, const struct astra_ir_node *n)
{
	size_t j;
	struct astra_buf a = ASTRA_BUF_INIT, b = ASTRA_BUF_INIT;
	long found = -1;
	astra_ir_print_expr(n, &a);
	for (j = 0; j < w->nr_reds && found < 0; j++) {
		astra_buf_reset(&b);
		astra_ir_print_expr(w->reds[j], &b);
		if (!strcmp(a.buf, b.buf))
			found = (long)j;
	}
	astra_buf_release(&a);
	astra_buf_release(&b);
	return found;
}

/* The row's reductions, innermost first, each once. */
static void collect(struct lw *w, const struct astra_ir_node *n)
{
	size_t j;
	for (j = 0; j < n->nr; j++)
		collect(w, n->a[j]);
	if (n->kind == IR_RED) {
		if (strcmp(n->axis, "c"))
			refuse(w, "a reduction over the rows");
		if (n->nr > 1)
			refuse(w, "a running sum that starts from a value of its own");
		if (red_index(w, n) < 0) {
			ALLOC_GROW(w->reds, w->nr_reds + 1, w->alloc_reds);
			w->reds[w->nr_reds++] = n;
		}
	}
}

static void emit(struct lw *w, const struct astra_ir_node *n, struct astra_buf *out, int index)
{
	size_t j;
	switch (n->kind) {
	case IR_NUM:
	case IR_NAME:
		astra_buf_adds(out, n->s);
		return;
	case IR_ATOM:
		if (!strcmp(n->s, "r"))
			astra_buf_adds(out, index ? "(size_t)astra_row" : "astra_row");
		else if (!strcmp(n->s, "c"))
			astra_buf_adds(out, "astra_c");
		else
			refuse(w, "a value of a thread index");
		return;
	case IR_LOAD:
		astra_buf_addf(out, "%s[", n->s);
		emit(w, n->a[0], out, 1);
		astra_buf_addch(out, ']');
		return;
	case IR_BIN:
		astra_buf_addch(out, '(');
		emit(w, n->a[0], out, index);
		astra_buf_addf(out, " %s ", n->s);
		emit(w, n->a[1], out, index);
		astra_buf_addch(out, ')');
		return;
	case IR_UN:
	case IR_CAST:   /* a local's declared type around a literal */
		astra_buf_addf(out, n->kind == IR_CAST ? "((%s)" : "(%s", n->s);
		emit(w, n->a[0], out, index);
		astra_buf_addch(out, ')');
		return;
	case IR_COND:
		astra_buf_addch(out, '(');
		emit(w, n->a[0], out, index);
		astra_buf_adds(out, " ? ");
		emit(w, n->a[1], out, index);
		astra_buf_adds(out, " : ");
		emit(w, n->a[2], out, index);
		astra_buf_addch(out, ')');
		return;
	case IR_CALL:
		astra_buf_addf(out, "%s(", n->s);
		for (j = 0; j < n->nr; j++) {
			if (j)
				astra_buf_adds(out, ", ");
			emit(w, n->a[j], out, index);
		}
		astra_buf_addch(out, ')');
		return;
	case IR_RED: {
		long k = red_index(w, n);
		if (k < 0)
			refuse(w, "a reduction the lowering did not collect");
		astra_buf_addf(out, "astra_red%ld", k);
		return;
	}
	default:
		refuse(w, "a node the lowering does not emit");
		return;
	}
}

/* Does n load buf at an index other than `at` (canonical text)? */
static int loads_elsewhere(const struct astra_ir_node *n, const char *buf, const char *at)
{
	size_t j;
	if (n->kind == IR_LOAD && !strcmp(n->s, buf)) {
		struct astra_buf t = ASTRA_BUF_INIT;
		int other;
		astra_ir_print_expr(n->a[0], &t);
		other = strcmp(t.buf, at) != 0;
		astra_buf_release(&t);
		if (other)
			return 1;
	}
	for (j = 0; j < n->nr; j++)
		if (loads_elsewhere(n->a[j], buf, at))
			return 1;
	return 0;
}

static int depends(const struct astra_ir_node *n, const char *atom)
{
	size_t j;
	if (n->kind == IR_ATOM && !strcmp(n->s, atom))
		return 1;
	if (n->kind == IR_RED && !strcmp(n->axis, atom))
		return 0;
	for (j = 0; j < n->nr; j++)
		if (depends(n->a[j], atom))
			return 1;
	return 0;
}

int astra_ir_lower_rows(const struct astra_ir *ir, const struct astra_kernel *k, const char *reduce_prefix,
			struct astra_buf *out, struct astra_buf *why)
{
	struct lw w;
	struct astra_buf body = ASTRA_BUF_INIT, cols = ASTRA_BUF_INIT;
	size_t j, m, sig = k->body_start > k->start ? k->body_start - k->start : 0;
	int any_c = 0;

	memset(&w, 0, sizeof(w));
	w.ir = ir;
	w.why = why;
	if (!ir->cols || !ir->rows)
		refuse(&w, "not a rows x columns computation");
	if (ir->rows_lo || ir->cols_lo)
		refuse(&w, "rows or columns that do not start at 0");
	for (j = 0; j < ir->nr_stores && !w.bad; j++) {
		struct astra_buf at = ASTRA_BUF_INIT;
		if (ir->stores[j].accumulate)
			refuse(&w, "an atomic store");
		astra_ir_print_expr(ir->stores[j].index, &at);
		for (m = 0; m < ir->nr_stores; m++)
			if (loads_elsewhere(ir->stores[m].value, ir->stores[j].buf, at.buf))
				refuse(&w, "a stored buffer is read at another place");
		astra_buf_release(&at);
		collect(&w, ir->stores[j].value);
		any_c |= depends(ir->stores[j].index, "c");
	}
	if (!w.nr_reds)
		refuse(&w, "no reduction over the row");
	if (w.bad) {
		free(w.reds);
		return -1;
	}
	astra_buf_add(out, k->text, sig);
	astra_buf_adds(&cols, ir->cols);
	astra_buf_addf(&body, "{\n\tconst int astra_row = blockIdx.x;\n\tif (astra_row >= (%s))\n\t\treturn;\n", ir->rows);
	for (j = 0; j < w.nr_reds; j++) {
		const struct astra_ir_node *r = w.reds[j];
		const char *ident = !strcmp(r->s, "sum") ? "0.0f" : !strcmp(r->s, "max") ? "-INFINITY" : "INFINITY";
		const char *comb = !strcmp(r->s, "sum") ? "sum" : !strcmp(r->s, "max") ? "fmaxf" : "fminf";
		astra_buf_addf(&body, "\tfloat astra_red%zu = %s;\n", j, ident);
		astra_buf_addf(&body, "\tfor (int astra_c = threadIdx.x; astra_c < (%s); astra_c += blockDim.x)\n", cols.buf);
		astra_buf_addf(&body, "\t\tastra_red%zu = ", j);
		if (!strcmp(comb, "sum")) {
			astra_buf_addf(&body, "astra_red%zu + ", j);
			emit(&w, r->a[0], &body, 0);
		} else {
			astra_buf_addf(&body, "%s(astra_red%zu, ", comb, j);
			emit(&w, r->a[0], &body, 0);
			astra_buf_addch(&body, ')');
		}
		astra_buf_adds(&body, ";\n\t");
		astra_buf_addf(&body, "astra_red%zu = ", j);
		astra_buf_addf(&body, "%s%s", reduce_prefix, comb);
		astra_buf_addf(&body, "(astra_red%zu);\n", j);
	}
	if (any_c) {
		astra_buf_addf(&body, "\tfor (int astra_c = threadIdx.x; astra_c < (%s); astra_c += blockDim.x) {\n", cols.buf);
		for (j = 0; j < ir->nr_stores; j++)
			if (depends(ir->stores[j].index, "c")) {
				astra_buf_addf(&body, "\t\tconst float astra_v%zu = ", j);
				emit(&w, ir->stores[j].value, &body, 0);
				astra_buf_adds(&body, ";\n");
			}
		for (j = 0; j < ir->nr_stores; j++)
			if (depends(ir->stores[j].index, "c")) {
				astra_buf_addf(&body, "\t\t%s[", ir->stores[j].buf);
				emit(&w, ir->stores[j].index, &body, 1);
				astra_buf_addf(&body, "] = astra_v%zu;\n", j);
			}
		astra_buf_adds(&body, "\t}\n");
	}
	for (j = 0; j < ir->nr_stores; j++)
		if (!depends(ir->stores[j].index, "c")) {
			astra_buf_addf(&body, "\tif (threadIdx.x == 0)\n\t\t%s[", ir->stores[j].buf);
			emit(&w, ir->stores[j].index, &body, 1);
			astra_buf_adds(&body, "] = ");
			emit(&w, ir->stores[j].value, &body, 0);
			astra_buf_adds(&body, ";\n");
		}
	astra_buf_adds(&body, "}\n");
	free(w.reds);
	astra_buf_release(&cols);
	if (w.bad) {
		astra_buf_release(&body);
		return -1;
	}
	astra_buf_add(out, body.buf, body.len);
	astra_buf_release(&body);
	return 0;
}
