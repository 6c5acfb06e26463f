/*
 * lower-reduce.c - a reduction to one number, generated from its lifted
 * form (see lower-reduce.h; doc/lift.md).
 *
 * The kernel it writes, for `out[K] += sum_i(e(i))  (n=N)`:
 *
 *	float astra_acc = 0.0f;
 *	... grid-stride accumulation of e(i) over i < N, four elements at a
 *	    time through float4 loads when every buffer e loads is 16-byte
 *	    aligned (the rest, fewer than four, one by one), one by one when
 *	    one is not;
 *	astra_acc = <block all-reduce>(astra_acc);     warp shuffles, per-warp partials
 *	if (threadIdx.x == 0)
 *		atomicAdd(&out[K], astra_acc);         one atomic per block
 *
 * launched on at most 1024 blocks of 256 threads (2048 elements per block
 * at least).  Only the place the original adds to is written, as the
 * original does (an atomicAdd: the value already there is kept); the
 * elements summed are those the original's guards let through (the
 * extent N).  Floating-point order changes, as the original's does from
 * launch to launch: the verifier's tolerance decides.
 */
#include "autoconfig.h"

#include <string.h>

#include "ir/lower-reduce.h"
#include "lib/util.h"

struct rw {
	struct astra_buf *why;
	int bad;
};

static void refuse(struct rw *w, const char *what)
{
	if (!w->bad)
		astra_buf_adds(w->why, what);
	w->bad = 1;
}

/* The element index: a flat space's logical index is the atom "r" once lifted (printed `i`). */
static int is_i(const struct astra_ir_node *n)
{
	return n->kind == IR_ATOM && (!strcmp(n->s, "r") || !strcmp(n->s, "i"));
}

static int is_zero(const struct astra_ir_node *n)
{
	return n->kind == IR_NUM && (!strcmp(n->s, "0") || !strcmp(n->s, "0u") || !strcmp(n->s, "0U"));
}

/* An index that is the element's: i, or 0 + i (the lifter's offsets). */
static int index_is_i(const struct astra_ir_node *n)
{
	if (n->kind == IR_BIN && !strcmp(n->s, "+") && (is_zero(n->a[0]) || is_zero(n->a[1])))
		return index_is_i(is_zero(n->a[0]) ? n->a[1] : n->a[0]);
	return is_i(n);
}

/*
 * e(i) as C++.  comp: NULL, the element at astra_i; else ".x", ".y" ...:
 * every load buf[i] is that component of the float4 astra_v_<buf>.
 */
static void emit(struct rw *w, const struct astra_ir_node *n, struct astra_buf *out, const char *comp)
{
	size_t j;
	switch (n->kind) {
	case IR_NUM:
	case IR_NAME:
		astra_buf_adds(out, n->s);
		return;
	case IR_ATOM:
		if (is_i(n) && !comp)
			astra_buf_adds(out, "astra_i");
		else
			refuse(w, "a value of a thread index");
		return;
	case IR_LOAD:
		if (comp) {
			if (!index_is_i(n->a[0]))
				refuse(w, "a load at another place than the element's");
			astra_buf_addf(out, "astra_v_%s%s", n->s, comp);
			return;
		}
		astra_buf_addf(out, "%s[", n->s);
		emit(w, n->a[0], out, NULL);
		astra_buf_addch(out, ']');
		return;
	case IR_BIN:
		astra_buf_addch(out, '(');
		emit(w, n->a[0], out, comp);
		astra_buf_addf(out, " %s ", n->s);
		emit(w, n->a[1], out, comp);
		astra_buf_addch(out, ')');
		return;
	case IR_UN:
	case IR_CAST:   /* a local's declared type around a literal */
		astra_buf_addf(out, n->kind == IR_CAST ? "((%s)" : "(%s", n->s);
		emit(w, n->a[0], out, comp);
		astra_buf_addch(out, ')');
		return;
	case IR_COND:
		astra_buf_addch(out, '(');
		emit(w, n->a[0], out, comp);
		astra_buf_adds(out, " ? ");
		emit(w, n->a[1], out, comp);
		astra_buf_adds(out, " : ");
		emit(w, n->a[2], out, comp);
		astra_buf_addch(out, ')');
		return;
	case IR_CALL:
		astra_buf_addf(out, "%s(", n->s);
		for (j = 0; j < n->nr; j++) {
			if (j)
				astra_buf_adds(out, ", ");
			emit(w, n->a[j], out, comp);
		}
		astra_buf_addch(out, ')');
		return;
	default:
		refuse(w, "a node the lowering does not emit (a nested reduction, a pointer, a shared array)");
		return;
	}
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

/* Can e(i) be read four elements at a time: i only as the whole index of loads? */
static int vectorizable(const struct astra_ir_node *n)
{
	size_t j;
	if (n->kind == IR_LOAD)
		return index_is_i(n->a[0]);
	if (is_i(n))
		return 0;
	for (j = 0; j < n->nr; j++)
		if (!vectorizable(n->a[j]))
			return 0;
	return 1;
}

/* The buffers e(i) loads, each once, into bufs (at most max). */
static size_t loaded(const struct astra_ir_node *n, const char **bufs, size_t nr, size_t max)
{
	size_t j;
	if (n->kind == IR_LOAD) {
		for (j = 0; j < nr; j++)
			if (!strcmp(bufs[j], n->s))
				return nr;
		if (nr < max)
			bufs[nr++] = n->s;
		return nr;
	}
	for (j = 0; j < n->nr; j++)
		nr = loaded(n->a[j], bufs, nr, max);
	return nr;
}

int astra_ir_is_full_reduction(const struct astra_ir *ir, struct astra_buf *why)
{
	const struct astra_ir_store *s = ir->nr_stores == 1 ? &ir->stores[0] : NULL;
	if (!s) {
		astra_buf_addf(why, "%zu stores; a reduction to one number has one", ir->nr_stores);
		return 0;
	}
	if (ir->cols || !ir->rows) {
		astra_buf_adds(why, "not a flat iteration space (rows x columns)");
		return 0;
	}
	if (!s->accumulate || s->value->kind != IR_RED || strcmp(s->value->s, "sum") ||
	    (strcmp(s->value->axis, "r") && strcmp(s->value->axis, "i"))) {
		astra_buf_adds(why, "the store is not an atomic sum over the elements (`out[0] += sum_i(...)`)");
		return 0;
	}
	if (depends(s->index, "i") || depends(s->index, "r") || depends(s->index, "c")) {
		astra_buf_adds(why, "the sum goes to more than one place");
		return 0;
	}
	return 1;
}

int astra_ir_lower_reduce(const struct astra_ir *ir, const struct astra_kernel *k, const char *block_sum,
			  struct astra_buf *out, struct astra_buf *why)
{
	struct rw w = { why, 0 };
	struct astra_buf body = ASTRA_BUF_INIT, tmp = ASTRA_BUF_INIT;
	const struct astra_ir_node *e;
	const char *bufs[8];
	size_t nb = 0, j, sig = k->body_start > k->start ? k->body_start - k->start : 0;
	int vec;

	if (!astra_ir_is_full_reduction(ir, why))
		return -1;
	e = ir->stores[0].value->a[0];
	vec = vectorizable(e);
	if (vec) {
		nb = loaded(e, bufs, 0, 8);
		if (nb == 0 || nb == 8)
			vec = 0;
	}
	astra_buf_addf(&body,
		       "{\n"
		       "\tfloat astra_acc = 0.0f;\n"
		       "\tconst long long astra_n = (long long)(%s);\n"
		       "\tconst long long astra_stride = (long long)blockDim.x * gridDim.x;\n"
		       "\tconst long long astra_first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
		       "\tlong long astra_tail = 0;\n", ir->rows);
	if (vec) {
		static const char *const comps[4] = { ".x", ".y", ".z", ".w" };
		astra_buf_adds(&body, "\tif (((");
		for (j = 0; j < nb; j++)
			astra_buf_addf(&body, "%s(unsigned long long)(const void *)%s", j ? " | " : "", bufs[j]);
		astra_buf_adds(&body, ") & 15) == 0) {\n"
				      "\t\tconst long long astra_n4 = astra_n / 4;\n"
				      "\t\tfor (long long astra_j = astra_first; astra_j < astra_n4; astra_j += astra_stride) {\n");
		for (j = 0; j < nb; j++)
			astra_buf_addf(&body, "\t\t\tconst float4 astra_v_%s = reinterpret_cast<const float4 *>(%s)[astra_j];\n",
				       bufs[j], bufs[j]);
		for (j = 0; j < 4; j++) {
			astra_buf_reset(&tmp);
			emit(&w, e, &tmp, comps[j]);
			astra_buf_addf(&body, "\t\t\tastra_acc = astra_acc + %s;\n", tmp.buf ? tmp.buf : "");
		}
		astra_buf_adds(&body, "\t\t}\n\t\tastra_tail = astra_n4 * 4;\n\t}\n");
	}
	astra_buf_reset(&tmp);
	emit(&w, e, &tmp, NULL);
	astra_buf_addf(&body,
		       "\tfor (long long astra_i = astra_tail + astra_first; astra_i < astra_n; astra_i += astra_stride)\n"
		       "\t\tastra_acc = astra_acc + %s;\n"
		       "\tastra_acc = %s(astra_acc);\n"
		       "\tif (threadIdx.x == 0)\n"
		       "\t\tatomicAdd(&%s[", tmp.buf ? tmp.buf : "", block_sum, ir->stores[0].buf);
	astra_buf_reset(&tmp);
	emit(&w, ir->stores[0].index, &tmp, NULL);
	astra_buf_addf(&body, "%s], astra_acc);\n}\n", tmp.buf ? tmp.buf : "");
	astra_buf_release(&tmp);
	if (w.bad) {
		astra_buf_release(&body);
		return -1;
	}
	astra_buf_add(out, k->text, sig);
	astra_buf_add(out, body.buf, body.len);
	astra_buf_release(&body);
	return 0;
}

void astra_ir_reduce_grid(const struct astra_ir *ir, struct astra_buf *grid)
{
	astra_buf_addf(grid, "max(min(((long long)(%s) + 2047) / 2048, 1024LL), 1LL)", ir->rows);
}
