/*
 * lower-matvec.c - matrix-vector products from the IR (lower.h,
 * astra_ir_lower_matvec); the helpers are lower-nest.c's (lower-nest.h).
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lower.h"
#include "ir/lower-nest.h"
#include "ir/print.h"
#include "lib/util.h"

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
 * A block per row with one element per thread (a first pass's sums per
 * block, lift-share.c) lowers the same way where its row is contiguous:
 * a warp per row, each lane taking every 32nd column.
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
	if (n->kind == IR_LOAD && astra_nest_depends(n->a[0], "r") && astra_nest_depends(n->a[0], "c")) {
		if (astra_nest_unit_in(w, n->a[0], "c"))
			found = 1;
		else if (astra_nest_unit_in(w, n->a[0], "r"))
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
			astra_nest_refuse(w, line, "a reduction that is not a thread's sum over the row");
			return;
		}
		if (astra_nest_has_kind(n->a[0], IR_RED) || (n->nr > 1 && astra_nest_has_kind(n->a[1], IR_RED))) {
			astra_nest_refuse(w, line, "a sum of a sum");
			return;
		}
		for (j = 0; j < *nr; j++)
			if (astra_nest_same_expr(reds[j], n))
				return;
		if (*nr == MAX_OPERANDS) {
			astra_nest_refuse(w, line, "more than four sums over the row");
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
			if (astra_nest_same_expr(reds[j], n)) {
				if (n->nr > 1) {
					astra_buf_adds(out, "(");
					astra_nest_emit(w, n->a[1], out);
					astra_buf_addf(out, " + astra_red%zu)", j);
				} else {
					astra_buf_addf(out, "astra_red%zu", j);
				}
				return;
			}
		astra_nest_refuse(w, 0, "a reduction the lowering did not collect");
		return;
	}
	if (n->kind == IR_NUM || n->kind == IR_NAME || n->kind == IR_ATOM || n->kind == IR_LOAD) {
		astra_nest_emit(w, n, out);
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
	case IR_CAST:   /* a local's declared type around a literal */
		astra_buf_addf(out, n->kind == IR_CAST ? "((%s)" : "(%s", n->s);
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
		astra_nest_refuse(w, 0, "a node the lowering does not emit");
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
		astra_nest_emit(w, ir->stores[j].index, b);
		astra_buf_addf(b, "] = astra_v%zu;\n", j);
	}
}

/*
 * A walk by columns: rx rows per block on threadIdx.x (32, or 16 with ty
 * 64: twice the blocks for the same rows), the sum split over threadIdx.y.
 */
static void matvec_cols(struct nw *w, const char *type, int ty, const struct astra_ir_node **reds, size_t nr,
			struct astra_buf *b)
{
	const struct astra_ir *ir = w->ir;
	const int rx = ASTRA_MATVEC_ROWS(ty);
	size_t j;
	astra_buf_adds(b, "{\n");
	for (j = 0; j < nr; j++)
		astra_buf_addf(b, "\t__shared__ %s astra_part%zu[%d][%d];\n", type, j, ty, rx);
	astra_buf_addf(b, "\tfor (int astra_r0 = blockIdx.x * %d; astra_r0 < (%s); astra_r0 += gridDim.x * %d) {\n",
		       rx, ir->rows, rx);
	astra_buf_adds(b, "\t\tconst int astra_row = astra_r0 + threadIdx.x;\n");
	for (j = 0; j < nr; j++)
		astra_buf_addf(b, "\t\t%s astra_red%zu = 0;\n", type, j);
	astra_buf_addf(b, "\t\tif (astra_row < (%s)) {\n", ir->rows);
	/* several loads of each thread in flight: a block has only 32 rows' sums to spread */
	astra_buf_adds(b, "\t\t\t#pragma unroll 8\n");
	astra_buf_addf(b, "\t\t\tfor (int astra_c = threadIdx.y; astra_c < (%s); astra_c += %d) {\n", ir->cols, ty);
	for (j = 0; j < nr; j++) {
		astra_buf_addf(b, "\t\t\t\tastra_red%zu = astra_red%zu + ", j, j);
		astra_nest_emit(w, reds[j]->a[0], b);
		astra_buf_adds(b, ";\n");
	}
	astra_buf_adds(b, "\t\t\t}\n\t\t}\n");
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

/*
 * n with each condition that guards a load (no load in the condition, a
 * load in its true branch: a first pass's `i < n ? in[i] : 0`) replaced by
 * its true branch, the conditions added to g[0..*ng) once each (at most
 * MAX_OPERANDS; past that, a condition stays).  Where every guard holds for
 * a lane's 4 columns, the sums are these bodies: their loads are read by
 * the original too.
 */
static const struct astra_ir_node *unguard(struct nw *w, const struct astra_ir_node *n, const struct astra_ir_node **g,
					   size_t *ng)
{
	struct astra_ir_node *c;
	size_t j, m;
	int changed = 0;
	if (n->kind == IR_COND && !astra_nest_has_kind(n->a[0], IR_LOAD) && astra_nest_has_kind(n->a[1], IR_LOAD)) {
		for (m = 0; m < *ng; m++)
			if (astra_nest_same_expr(g[m], n->a[0]))
				break;
		if (m < *ng || *ng < MAX_OPERANDS) {
			if (m == *ng)
				g[(*ng)++] = n->a[0];
			return unguard(w, n->a[1], g, ng);
		}
	}
	c = astra_ir_alloc(&w->ar, sizeof(*c));
	*c = *n;
	c->a = astra_ir_alloc(&w->ar, (n->nr ? n->nr : 1) * sizeof(*c->a));
	for (j = 0; j < n->nr; j++) {
		c->a[j] = (struct astra_ir_node *)unguard(w, n->a[j], g, ng);
		changed |= c->a[j] != n->a[j];
	}
	return changed ? c : n;
}

/*
 * `astra_vec astra_lJ` of load n (a matrix row's 4 columns, read once) as
 * streaming loads (ld.global.cs, evict first: the row does not push out
 * of L2 what is read again, the vector; on an H200 a 128 MB read after
 * an L2 flush took 38 us instead of 41), 16 bytes at a time; an element
 * type whose 4 do not make whole 16 bytes loads as lower-matvec.
 */
static void stream_load(struct nw *w, const struct astra_ir_node *n, size_t j, struct astra_buf *b)
{
	astra_buf_addf(b, "\t\t\t\tastra_vec astra_l%zu;\n", j);
	astra_buf_adds(b, "\t\t\t\tif (sizeof(astra_vec) % sizeof(uint4) == 0)\n");
	astra_buf_adds(b, "\t\t\t\t\tfor (int astra_k = 0; astra_k < (int)(sizeof(astra_vec) / sizeof(uint4)); astra_k++) {\n");
	astra_buf_addf(b, "\t\t\t\t\t\tconst uint4 astra_u = __ldcs((const uint4 *)&%s[", n->s);
	astra_nest_emit(w, n->a[0], b);
	astra_buf_adds(b, "] + astra_k);\n");
	astra_buf_addf(b, "\t\t\t\t\t\tmemcpy((char *)&astra_l%zu + sizeof(uint4) * astra_k, &astra_u, sizeof(uint4));\n", j);
	astra_buf_adds(b, "\t\t\t\t\t}\n\t\t\t\telse\n");
	astra_buf_addf(b, "\t\t\t\t\tastra_l%zu = *(const astra_vec *)&%s[", j, n->s);
	astra_nest_emit(w, n->a[0], b);
	astra_buf_adds(b, "];\n");
}

int astra_ir_lower_matvec(const struct astra_ir *ir, const struct astra_kernel *k, const char *type, int ty, int stream,
			  int *by_cols, struct astra_buf *out, struct astra_buf *why)
{
	struct nw w;
	struct astra_buf b = ASTRA_BUF_INIT;
	const struct astra_ir_node *reds[MAX_OPERANDS], *v[MAX_LOADS], *body[MAX_OPERANDS], *guards[MAX_OPERANDS];
	char lane[32];
	size_t nr = 0, nv = 0, ng = 0, j, m, sig = k->body_start > k->start ? k->body_start - k->start : 0;
	int rows_walked = 0, col_walk = 0, l;

	memset(&w, 0, sizeof(w));
	w.ir = ir;
	w.k = k;
	w.why = why;
	*by_cols = 0;
	if ((ir->mapping != IR_MAP_THREAD_ROW && !(ir->mapping == IR_MAP_BLOCK && ir->one_per_thread)) || !ir->rows ||
	    !ir->cols || ir->inner)
		astra_nest_refuse(&w, 0, "not a thread per row with a loop over the row's columns, nor a block per row "
				  "with one element per thread");
	else if (ir->rows_lo || ir->cols_lo)
		astra_nest_refuse(&w, 0, "rows or columns that do not start at 0");
	for (j = 0; j < ir->nr_stores && !w.bad; j++) {
		const struct astra_ir_store *s = &ir->stores[j];
		if (s->accumulate)
			astra_nest_refuse(&w, s->line, "an atomic store");
		else if (astra_nest_depends(s->index, "c"))
			astra_nest_refuse(&w, s->line, "a store per column (not a row's result)");
		for (m = 0; m < ir->nr_stores && !w.bad; m++)
			if (astra_nest_loads_elsewhere(ir->stores[m].value, s->buf, s->index))
				astra_nest_refuse(&w, s->line, "a stored buffer is read at another place");
		if (!w.bad)
			collect_sums(&w, s->value, reds, &nr, s->line);
	}
	if (!w.bad && !nr)
		astra_nest_refuse(&w, ir->stores[0].line, "no sum over the row");
	for (j = 0; j < nr && !w.bad; j++)
		rows_walked |= row_walk(&w, reds[j]->a[0], &col_walk);
	if (!w.bad && !rows_walked && !col_walk)
		astra_nest_refuse(&w, ir->stores[0].line, "no matrix read along its rows (A[r * n + c]) or columns (A[c * n + r]) "
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
	astra_buf_addf(&b, "{\n\tstruct alignas(4 * sizeof(%s)) astra_vec { %s e[4]; };\n", type, type);
	astra_buf_adds(&b, "\tconst int astra_lane = threadIdx.x & 31;\n");
	astra_buf_adds(&b, "\tconst int astra_warps = (blockDim.x >> 5) * gridDim.x;\n");
	astra_buf_addf(&b, "\tfor (int astra_row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; astra_row < (%s); "
			   "astra_row += astra_warps) {\n", ir->rows);
	for (j = 0; j < nr; j++)
		astra_buf_addf(&b, "\t\t%s astra_red%zu = 0;\n", type, j);
	for (j = 0; j < nr; j++) {
		body[j] = unguard(&w, reds[j]->a[0], guards, &ng);
		nv = astra_nest_row_loads(&w, body[j], v, nv);
	}
	astra_buf_adds(&b, "\t\tint astra_c0 = 0;\n");
	if (nv) {
		/* where every place read along the row is aligned at its first column: 4 columns per lane at a time */
		astra_buf_adds(&b, "\t\tif (");
		w.name_c = "0";
		for (j = 0; j < nv; j++) {
			astra_buf_addf(&b, "%s((unsigned long long)&%s[", j ? " &&\n\t\t    " : "", v[j]->s);
			astra_nest_emit(&w, v[j]->a[0], &b);
			astra_buf_adds(&b, "] & (sizeof(astra_vec) - 1)) == 0");
		}
		astra_buf_adds(&b, ") {\n");
		/*
		 * Not unrolled: `#pragma unroll 4` here took the 4096 x 4096 row walks
		 * from 26 to 31 us on an H200 (the corpus records of eb62b7a and 2215f0b).
		 */
		astra_buf_addf(&b, "\t\t\tfor (int astra_q = astra_lane * 4; astra_q + 3 < (%s); astra_q += 128) {\n",
			       ir->cols);
		if (ng) {
			/* the guards hold for all 4 columns: the loads they guard are the original's */
			astra_buf_adds(&b, "\t\t\t\tif (");
			for (j = 0; j < ng; j++)
				for (l = 0; l < 4; l++) {
					snprintf(lane, sizeof(lane), "(astra_q + %d)", l);
					w.name_c = lane;
					astra_buf_adds(&b, j || l ? " && (" : "(");
					astra_nest_emit(&w, guards[j], &b);
					astra_buf_adds(&b, ")");
				}
			astra_buf_adds(&b, ") {\n");
		}
		w.name_c = "astra_q";
		for (j = 0; j < nv; j++) {
			if (stream && astra_nest_depends(v[j]->a[0], "r")) {
				stream_load(&w, v[j], j, &b);
				continue;
			}
			astra_buf_addf(&b, "\t\t\t\tconst astra_vec astra_l%zu = *(const astra_vec *)&%s[", j, v[j]->s);
			astra_nest_emit(&w, v[j]->a[0], &b);
			astra_buf_adds(&b, "];\n");
		}
		for (l = 0; l < 4; l++) {
			snprintf(lane, sizeof(lane), "(astra_q + %d)", l);
			w.name_c = lane;
			for (j = 0; j < nv; j++) {
				w.rep_load[j] = v[j];
				w.rep_text[j] = xasprintf("astra_l%zu.e[%d]", j, l);
			}
			w.nr_rep = nv;
			for (j = 0; j < nr; j++) {
				astra_buf_addf(&b, "\t\t\t\tastra_red%zu = astra_red%zu + ", j, j);
				astra_nest_emit(&w, body[j], &b);
				astra_buf_adds(&b, ";\n");
			}
			for (j = 0; j < nv; j++)
				free(w.rep_text[j]);
			w.nr_rep = 0;
		}
		if (ng) {
			/* a guard fails somewhere in the 4: each column as written */
			astra_buf_adds(&b, "\t\t\t\t} else {\n");
			for (l = 0; l < 4; l++) {
				snprintf(lane, sizeof(lane), "(astra_q + %d)", l);
				w.name_c = lane;
				for (j = 0; j < nr; j++) {
					astra_buf_addf(&b, "\t\t\t\t\tastra_red%zu = astra_red%zu + ", j, j);
					astra_nest_emit(&w, reds[j]->a[0], &b);
					astra_buf_adds(&b, ";\n");
				}
			}
			astra_buf_adds(&b, "\t\t\t\t}\n");
		}
		w.name_c = "astra_c";
		astra_buf_addf(&b, "\t\t\t}\n\t\t\tastra_c0 = (%s) / 4 * 4;\n\t\t}\n", ir->cols);
	}
	astra_buf_addf(&b, "\t\tfor (int astra_c = astra_c0 + astra_lane; astra_c < (%s); astra_c += 32) {\n", ir->cols);
	for (j = 0; j < nr; j++) {
		astra_buf_addf(&b, "\t\t\tastra_red%zu = astra_red%zu + ", j, j);
		astra_nest_emit(&w, reds[j]->a[0], &b);
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

