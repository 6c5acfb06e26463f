/*
 * lower-stencil.c - stencils from the IR (lower.h, astra_ir_lower_stencil);
 * the helpers are lower-nest.c's (lower-nest.h).
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

/* f at (r + dr, c + dc); c first: r's replacement holds an atom r, not c */
static const struct astra_ir_node *shifted(struct nw *w, const struct astra_ir_node *f, int dr, int dc)
{
	return astra_nest_moved(w, astra_nest_moved(w, f, "c", dc), "r", dr);
}

/* Is load index f the index f0 shifted by (dr, dc) in [-HALO, HALO]? */
static int shift_of(struct nw *w, const struct astra_ir_node *f, const struct astra_ir_node *f0, int *dr, int *dc)
{
	int i, j;
	for (i = -HALO; i <= HALO; i++)
		for (j = -HALO; j <= HALO; j++)
			if (astra_nest_same_poly(w, f, shifted(w, f0, i, j))) {
				*dr = i;
				*dc = j;
				return 1;
			}
	return 0;
}

static void stencil_loads(struct nw *w, const struct astra_ir_node *n, struct stbuf *bufs, size_t *nr_bufs,
			  unsigned line)
{
	size_t j, m;
	if (n->kind == IR_RED || n->kind == IR_PARTIAL) {
		astra_nest_refuse(w, line, "a reduction in a stencil");
		return;
	}
	if (n->kind == IR_LOAD) {
		struct stbuf *b = NULL;
		int dr, dc;
		if (astra_nest_has_kind(n->a[0], IR_LOAD)) {
			astra_nest_refuse(w, line, "a gather (an index read from memory)");
			return;
		}
		if (!astra_nest_depends(n->a[0], "r") || !astra_nest_depends(n->a[0], "c") || !astra_nest_unit_in(w, n->a[0], "c"))
			return;   /* read directly */
		for (j = 0; j < *nr_bufs; j++)
			if (!strcmp(bufs[j].buf, n->s))
				b = &bufs[j];
		if (!b) {
			if (*nr_bufs == MAX_OPERANDS) {
				astra_nest_refuse(w, line, "more than four inputs read at shifted places");
				return;
			}
			b = &bufs[(*nr_bufs)++];
			memset(b, 0, sizeof(*b));
			b->buf = n->s;
			b->f0 = n->a[0];
		}
		if (!shift_of(w, n->a[0], b->f0, &dr, &dc)) {
			astra_nest_refuse(w, line, "reads of one input that are not shifts of each other by at most 2 rows and columns");
			return;
		}
		for (m = 0; m < b->nr; m++)
			if (b->dr[m] == dr && b->dc[m] == dc)
				return;
		if (b->nr == MAX_LOADS) {
			astra_nest_refuse(w, line, "too many shifted reads of one input");
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
	if (n->kind == IR_LOAD && !strcmp(n->s, b->buf) && astra_nest_depends(n->a[0], "r") && astra_nest_depends(n->a[0], "c") &&
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
		astra_nest_refuse(&w, 0, "not a 2-D grid with a thread per element and no loop");
	for (j = 0; j < ir->nr_stores && !w.bad; j++) {
		const struct astra_ir_store *s = &ir->stores[j];
		if (s->accumulate)
			astra_nest_refuse(&w, s->line, "an atomic store");
		else if (!astra_nest_depends(s->index, "r") || !astra_nest_depends(s->index, "c"))
			astra_nest_refuse(&w, s->line, "a store that is not per element");
		for (m = 0; m < ir->nr_stores && !w.bad; m++)
			if (astra_nest_loads_elsewhere(ir->stores[m].value, s->buf, s->index))
				astra_nest_refuse(&w, s->line, "a stored buffer is read at another place (an update in place)");
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
		astra_nest_refuse(&w, ir->nr_stores ? ir->stores[0].line : 0,
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
		astra_nest_emit(&w, sb->f0, &b);
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
	astra_nest_emit_stores(&w, type, "\t\t\t", NULL, &b);
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
