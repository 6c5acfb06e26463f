/*
 * lower-map.c - element-wise maps of a 2-D space from the IR (lower.h,
 * astra_ir_lower_map); the helpers are lower-nest.c's (lower-nest.h).
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
 * A map of a rows x columns space: each out[r, c] a function of inputs
 * read at (r, c), at places shifted along the row, per row or column, or
 * through an index read at such places (a gather)
 * (PolyBench's gemver update and correlation's centring, cuda-samples'
 * tiled copy, the jacobi copy-back, fdtd-2d's updates), written a thread
 * per element of a 2-D grid or a tile's rows per thread.  Each thread
 * already moves one element per load; the copy roofline wants wider
 * loads and every SM's memory pipe full.  Lowered: a thread per 4
 * consecutive columns of a row (groups at columns 4g, so a row whose
 * place is 16-byte aligned stays aligned in every row of a matrix whose
 * width is a multiple of 4), the groups of all rows in one grid-stride
 * loop over the whole grid (any grid, any 1-D block).  A group whose four
 * columns are all in the guarded range loads each input read along the
 * row as one 4-element vector where its place is aligned (else the same
 * four elements one by one: the loads the original's four threads do)
 * and stores the same way; a group at a border does each of its columns
 * as the original's thread would, under the original's guard.  Loads
 * under a condition stay per column, as written (no read the original
 * does not do); nothing is written outside the guarded range.
 */
#define VEC 4
/* a strip: at most STRIP_ROWS rows per thread, the places it loads */
#define STRIP_ROWS 8
#define STRIP_LOADS (STRIP_ROWS * MAX_LOADS)

/* A load's index per column c (unit stride in c, no gather). */
static int along_row(struct nw *w, const struct astra_ir_node *n)
{
	return n->kind == IR_LOAD && astra_nest_depends(n->a[0], "c") && !astra_nest_has_kind(n->a[0], IR_LOAD) &&
	       astra_nest_unit_in(w, n->a[0], "c");
}

size_t astra_nest_row_loads(struct nw *w, const struct astra_ir_node *n, const struct astra_ir_node **v, size_t nr)
{
	size_t j;
	if (n->kind == IR_COND)
		return astra_nest_row_loads(w, n->a[0], v, nr);   /* the condition is evaluated by every thread */
	if (along_row(w, n)) {
		for (j = 0; j < nr; j++)
			if (astra_nest_same_expr(v[j], n))
				return nr;
		if (nr < MAX_LOADS)
			v[nr++] = n;
		return nr;
	}
	for (j = 0; j < n->nr; j++)
		nr = astra_nest_row_loads(w, n->a[j], v, nr);
	return nr;
}

static void check_value(struct nw *w, const struct astra_ir_node *n, unsigned line)
{
	size_t j;
	if (n->kind == IR_RED || n->kind == IR_PARTIAL) {
		astra_nest_refuse(w, line, "a reduction (not an element-wise map)");
		return;
	}
	for (j = 0; j < n->nr && !w->bad; j++)
		check_value(w, n->a[j], line);
}

/* The address of n (a load or a store's place) at the group's first column. */
static void place(struct nw *w, const char *buf, const struct astra_ir_node *index, struct astra_buf *b)
{
	astra_buf_addf(b, "&%s[", buf);
	astra_nest_emit(w, index, b);
	astra_buf_adds(b, "]");
}

/* `astra_vec astra_lJ`: the 4 elements of load n at the group's columns, one vector where aligned. */
static void vector_load(struct nw *w, const char *type, const struct astra_ir_node *n, size_t j, struct astra_buf *b)
{
	astra_buf_addf(b, "\t\t\tastra_vec astra_l%zu;\n\t\t\t{\n\t\t\t\tconst %s *astra_p = ", j, type);
	place(w, n->s, n->a[0], b);
	astra_buf_adds(b, ";\n\t\t\t\tif (((unsigned long long)astra_p & (sizeof(astra_vec) - 1)) == 0)\n");
	astra_buf_addf(b, "\t\t\t\t\tastra_l%zu = *(const astra_vec *)astra_p;\n\t\t\t\telse\n", j);
	astra_buf_addf(b, "\t\t\t\t\tfor (int astra_k = 0; astra_k < %d; astra_k++)\n", VEC);
	astra_buf_addf(b, "\t\t\t\t\t\tastra_l%zu.e[astra_k] = astra_p[astra_k];\n\t\t\t}\n", j);
}

/* Store s of the group's 4 columns from the values `<vname>0` .. `<vname>3`, one vector where aligned. */
static void vector_store(struct nw *w, const char *type, const struct astra_ir_store *s, const char *vname,
			 struct astra_buf *b)
{
	int l;
	astra_buf_adds(b, "\t\t\t{\n\t\t\t\tastra_vec astra_o;\n");
	for (l = 0; l < VEC; l++)
		astra_buf_addf(b, "\t\t\t\tastra_o.e[%d] = %s%d;\n", l, vname, l);
	astra_buf_addf(b, "\t\t\t\t%s *astra_p = ", type);
	place(w, s->buf, s->index, b);
	astra_buf_adds(b, ";\n\t\t\t\tif (((unsigned long long)astra_p & (sizeof(astra_vec) - 1)) == 0)\n");
	astra_buf_adds(b, "\t\t\t\t\t*(astra_vec *)astra_p = astra_o;\n\t\t\t\telse\n");
	astra_buf_addf(b, "\t\t\t\t\tfor (int astra_k = 0; astra_k < %d; astra_k++)\n", VEC);
	astra_buf_adds(b, "\t\t\t\t\t\tastra_p[astra_k] = astra_o.e[astra_k];\n\t\t\t}\n");
}

/* a - b is the integer *d (|d| <= 3, not 0)? */
static int near_shift(struct nw *w, const struct astra_ir_node *a, const struct astra_ir_node *b, int *d)
{
	struct astra_buf t = ASTRA_BUF_INIT;
	int ok;
	astra_ir_print_poly(astra_ir_node(&w->ar, IR_BIN, "-", 2, (struct astra_ir_node *)a, (struct astra_ir_node *)b), &t);
	ok = t.len && (!strcmp(t.buf, "1") || !strcmp(t.buf, "2") || !strcmp(t.buf, "3") || !strcmp(t.buf, "-1") ||
		       !strcmp(t.buf, "-2") || !strcmp(t.buf, "-3"));
	if (ok)
		*d = atoi(t.buf);
	astra_buf_release(&t);
	return ok;
}

/* The integer term of a - b, mod 4. */
static int offset_mod4(struct nw *w, const struct astra_ir_node *a, const struct astra_ir_node *b)
{
	long v = astra_ir_poly_constant(
		astra_ir_node(&w->ar, IR_BIN, "-", 2, (struct astra_ir_node *)a, (struct astra_ir_node *)b));
	return (int)(((v % 4) + 4) % 4);
}

/*
 * Loads of one buffer a few columns apart (a stencil's c - 1, c, c + 1):
 * each one shifted by d from a base takes the base's 4 elements where its
 * column falls among them and reads the rest (at most 3) itself.  A base
 * is a load whose place is the first store's shifted by a multiple of 4
 * columns (aligned with it where the store is); a load with no base near
 * it is a load of its own (base[j] = -1), as is every base.
 */
static void shifted_loads(struct nw *w, const struct astra_ir_node **v, size_t nv, const struct astra_ir_node *store,
			  int *base, int *shift)
{
	size_t j, m;
	for (j = 0; j < nv; j++)
		base[j] = -1;
	for (j = 0; j < nv; j++) {
		int d;
		if (base[j] != -1 || offset_mod4(w, v[j]->a[0], store))
			continue;
		for (m = 0; m < nv; m++)
			if (m != j && base[m] == -1 && !strcmp(v[m]->s, v[j]->s) && near_shift(w, v[m]->a[0], v[j]->a[0], &d)) {
				/* m is a base of nothing yet: it becomes j's */
				size_t q;
				int taken = 0;
				for (q = 0; q < nv; q++)
					taken |= base[q] == (int)m;
				if (taken)
					continue;
				base[m] = (int)j;
				shift[m] = d;
			}
	}
}

/*
 * The kernel's opening: the 4-element struct, and the grid-stride loop
 * over every group of 4 columns of `rows` rows (lower-map: 1; a strip:
 * more), each group's first row astra_r and column astra_c (a flat
 * space: no row, its columns in 64 bits).
 */
static void group_loop(const struct astra_ir *ir, const char *type, int rows, int flat, const char *rlo,
		       const char *clo, struct astra_buf *b)
{
	astra_buf_addf(b, "{\n\tstruct alignas(%d * sizeof(%s)) astra_vec { %s e[%d]; };\n", VEC, type, type, VEC);
	astra_buf_addf(b, "\tconst long long astra_ng = ((long long)(%s) + %d) / %d - (long long)(%s) / %d;\n", ir->cols, VEC - 1,
		       VEC, clo, VEC);
	if (rows > 1)
		astra_buf_addf(b, "\tconst long long astra_n = ((long long)((%s) - (%s)) + %d) / %d * astra_ng;\n", ir->rows,
			       rlo, rows - 1, rows);
	else
		astra_buf_addf(b, "\tconst long long astra_n = (long long)((%s) - (%s)) * astra_ng;\n", ir->rows, rlo);
	astra_buf_adds(b, "\tconst long long astra_step = (long long)gridDim.x * gridDim.y * blockDim.x;\n");
	astra_buf_adds(b, "\tfor (long long astra_e = ((long long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + "
			  "threadIdx.x; astra_e < astra_n; astra_e += astra_step) {\n");
	if (flat) {
		/* a flat extent may pass 2^31 (a size_t n): the columns in 64 bits */
		astra_buf_addf(b, "\t\tconst long long astra_c = %d * ((long long)(%s) / %d + astra_e %% astra_ng);\n", VEC, clo,
			       VEC);
		return;
	}
	if (rows > 1)
		astra_buf_addf(b, "\t\tconst int astra_r = (%s) + %d * (int)(astra_e / astra_ng);\n", rlo, rows);
	else
		astra_buf_addf(b, "\t\tconst int astra_r = (%s) + (int)(astra_e / astra_ng);\n", rlo);
	astra_buf_addf(b, "\t\tconst int astra_c = %d * ((%s) / %d + (int)(astra_e %% astra_ng));\n", VEC, clo, VEC);
}

/* Do loads a and b read one place (one buffer, indices equal as polynomials)? */
static int same_place(struct nw *w, const struct astra_ir_node *a, const struct astra_ir_node *b)
{
	return !strcmp(a->s, b->s) && astra_nest_same_poly(w, a->a[0], b->a[0]);
}

/* The place of n in u[0..nu), added when new (at most max); -1 when full. */
static int place_of(struct nw *w, const struct astra_ir_node *n, const struct astra_ir_node **u, size_t *nu, size_t max)
{
	size_t m;
	for (m = 0; m < *nu; m++)
		if (same_place(w, u[m], n))
			return (int)m;
	if (*nu == max)
		return -1;
	u[(*nu)++] = n;
	return (int)m;
}

/*
 * A group of 4 columns over `rows` consecutive rows (a strip), all in the
 * guarded range: every place the strip's outputs read along the row is
 * loaded once (rows r + i of one load that are rows r + i' of another are
 * one load: a stencil's input rows are read once per strip, not once per
 * output row), 4 at a time where aligned; the columns a vector does not
 * hold (a stencil's c - 1 and c + 4) read once each; then each row's
 * values and stores as lower-map's group.  Returns -1 when the strip
 * reads more places than it can name.
 */
static int strip_group(struct nw *w, const char *type, const struct astra_ir_node **v, size_t nv, int rows,
		       struct astra_buf *b)
{
	const struct astra_ir *ir = w->ir;
	const struct astra_ir_node *u[STRIP_LOADS], *h[STRIP_LOADS];
	int base[STRIP_LOADS], shift[STRIP_LOADS], at[STRIP_ROWS][MAX_LOADS];
	size_t nu = 0, nh = 0, j, m;
	char rname[32], lane[32], vname[48];
	int i, l;

	for (i = 0; i < rows; i++)
		for (j = 0; j < nv; j++)
			if ((at[i][j] = place_of(w, astra_nest_moved(w, v[j], "r", i), u, &nu, STRIP_LOADS)) < 0)
				return -1;
	shifted_loads(w, u, nu, ir->stores[0].index, base, shift);
	w->name_r = "astra_r";
	w->name_c = "astra_c";
	for (m = 0; m < nu; m++)
		if (base[m] < 0)
			vector_load(w, type, u[m], m, b);
	for (m = 0; m < nu; m++)
		for (l = 0; l < VEC && base[m] >= 0; l++) {
			int e = l + shift[m];
			size_t before = nh;
			const struct astra_ir_node *d = astra_nest_moved(w, u[m], "c", l);
			if (e >= 0 && e < VEC)
				continue;
			if (place_of(w, d, h, &nh, STRIP_LOADS) < 0)
				return -1;
			if (nh == before)
				continue;
			astra_buf_addf(b, "\t\t\tconst %s astra_h%zu = ", type, before);
			astra_nest_emit(w, d, b);
			astra_buf_adds(b, ";\n");
		}
	for (i = 0; i < rows; i++) {
		snprintf(rname, sizeof(rname), "(astra_r + %d)", i);
		w->name_r = i ? rname : "astra_r";
		for (l = 0; l < VEC; l++) {
			snprintf(lane, sizeof(lane), "(astra_c + %d)", l);
			w->name_c = lane;
			for (j = 0; j < nv; j++) {
				int q = at[i][j], e = base[q] < 0 ? l : l + shift[q];
				w->rep_load[w->nr_rep] = v[j];
				if (e >= 0 && e < VEC)
					w->rep_text[w->nr_rep++] = xasprintf("astra_l%d.e[%d]", base[q] < 0 ? q : base[q], e);
				else
					w->rep_text[w->nr_rep++] =
						xasprintf("astra_h%d", place_of(w, astra_nest_moved(w, u[q], "c", l), h, &nh, nh));
			}
			for (j = 0; j < ir->nr_stores; j++) {
				astra_buf_addf(b, "\t\t\tconst %s astra_v%zu_%d_%d = ", type, j, i, l);
				astra_nest_emit(w, ir->stores[j].value, b);
				astra_buf_adds(b, ";\n");
			}
			for (j = 0; j < w->nr_rep; j++)
				free(w->rep_text[j]);
			w->nr_rep = 0;
		}
		w->name_c = "astra_c";
		for (j = 0; j < ir->nr_stores; j++) {
			snprintf(vname, sizeof(vname), "astra_v%zu_%d_", j, i);
			vector_store(w, type, &ir->stores[j], vname, b);
		}
	}
	return 0;
}

/*
 * Does a load at row r + d read what another load reads at row r (a
 * reuse a strip of rows makes)?  A load the row does not move (a vector
 * read along every row, gemver's v1[c]) does not count: the cache holds it.
 */
static int rows_reused(struct nw *w, const struct astra_ir_node **v, size_t nv)
{
	size_t j, m;
	int d;
	for (d = 1; d < STRIP_ROWS; d++)
		for (j = 0; j < nv; j++)
			for (m = 0; m < nv; m++)
				if (astra_nest_depends(v[j]->a[0], "r") && same_place(w, astra_nest_moved(w, v[j], "r", d), v[m]))
					return 1;
	return 0;
}

/*
 * The strip lowering's body: groups of 4 columns over `rows` rows each,
 * in a grid-stride loop over the whole grid; a strip wholly in the
 * guarded range as strip_group, one at a border element by element as
 * the original's threads, under its guard.
 */
static int strip(struct nw *w, const char *type, const struct astra_ir_node **v, size_t nv, int rows,
		 const char *rlo, const char *clo, struct astra_buf *b)
{
	const struct astra_ir *ir = w->ir;
	group_loop(ir, type, rows, 0, rlo, clo, b);
	astra_buf_addf(b, "\t\tif (astra_c >= (%s) && astra_c + %d < (%s) && astra_r + %d < (%s)) {\n", clo, VEC - 1,
		       ir->cols, rows - 1, ir->rows);
	if (strip_group(w, type, v, nv, rows, b) < 0) {
		astra_nest_refuse(w, ir->nr_stores ? ir->stores[0].line : 0, "a strip reads more places than it can name");
		return -1;
	}
	astra_buf_addf(b, "\t\t} else {\n\t\t\tfor (int astra_i = 0; astra_i < %d && astra_r + astra_i < (%s); astra_i++)\n",
		       rows, ir->rows);
	astra_buf_addf(b, "\t\t\tfor (int astra_k = 0; astra_k < %d; astra_k++) {\n", VEC);
	astra_buf_adds(b, "\t\t\t\tconst int astra_rr = astra_r + astra_i, astra_cc = astra_c + astra_k;\n");
	astra_buf_addf(b, "\t\t\t\tif (astra_cc >= (%s) && astra_cc < (%s)) {\n", clo, ir->cols);
	w->name_r = "astra_rr";
	w->name_c = "astra_cc";
	astra_nest_emit_stores(w, type, "\t\t\t\t\t", NULL, b);
	astra_buf_adds(b, "\t\t\t\t}\n\t\t\t}\n\t\t}\n\t}\n}\n");
	return 0;
}

int astra_ir_flat_space(const struct astra_ir *ir)
{
	return !ir->cols && ir->rows && !ir->inner && (ir->mapping == IR_MAP_THREAD || ir->mapping == IR_MAP_GRID_STRIDE);
}

/*
 * A flat space (`y[i] = f(x[i])`, a thread per element or a grid-stride
 * loop; the lifter's flat index is r, printed i) as one row of columns
 * c = i: the same groups of 4, the rows' parts left out.  one's stores
 * and nodes live in w's arena; its other fields point into ir.
 */
static const struct astra_ir *as_one_row(struct nw *w, const struct astra_ir *ir, struct astra_ir *one)
{
	size_t j;
	memset(one, 0, sizeof(*one));
	one->mapping = IR_MAP_2D;
	one->rows = "1";
	one->cols = ir->rows;
	one->cols_lo = ir->rows_lo;
	one->nr_stores = ir->nr_stores;
	one->stores = astra_ir_alloc(&w->ar, ir->nr_stores * sizeof(*one->stores));
	for (j = 0; j < ir->nr_stores; j++) {
		one->stores[j] = ir->stores[j];
		one->stores[j].index = astra_nest_subst(w, ir->stores[j].index, "r", astra_ir_node(&w->ar, IR_ATOM, "c", 0));
		one->stores[j].value = astra_nest_subst(w, ir->stores[j].value, "r", astra_ir_node(&w->ar, IR_ATOM, "c", 0));
	}
	return one;
}

static int lower_map(const struct astra_ir *ir, const struct astra_kernel *k, const char *type, int rows,
		     struct astra_buf *out, struct astra_buf *why)
{
	struct nw w;
	struct astra_ir one;
	struct astra_buf b = ASTRA_BUF_INIT;
	const struct astra_ir_node *v[MAX_LOADS];
	int base[MAX_LOADS], shift[MAX_LOADS];
	char lane[32];
	size_t nv = 0, j, m, sig = k->body_start > k->start ? k->body_start - k->start : 0;
	int l, flat;
	const char *rlo, *clo;

	memset(&w, 0, sizeof(w));
	w.k = k;
	w.why = why;
	flat = astra_ir_flat_space(ir);
	if (flat)
		ir = as_one_row(&w, ir, &one);
	w.ir = ir;
	if ((ir->mapping != IR_MAP_2D && ir->mapping != IR_MAP_2D_TILE) || !ir->rows || !ir->cols || ir->inner)
		astra_nest_refuse(&w, 0, "not a flat or 2-D space with a thread per element and no loop over k");
	else if (ir->cols_first && astra_nest_depends(ir->cols_first, "r"))
		astra_nest_refuse(&w, 0, "columns that start at the row (a triangle)");
	for (j = 0; j < ir->nr_stores && !w.bad; j++) {
		const struct astra_ir_store *s = &ir->stores[j];
		if (s->accumulate)
			astra_nest_refuse(&w, s->line, "an atomic store");
		else if ((!flat && !astra_nest_depends(s->index, "r")) || !astra_nest_depends(s->index, "c") ||
			 astra_nest_has_kind(s->index, IR_LOAD))
			astra_nest_refuse(&w, s->line, "a store that is not per element");
		else if (!astra_nest_unit_in(&w, s->index, "c"))
			astra_nest_refuse(&w, s->line, "a store that does not follow the row (a transpose)");
		for (m = 0; m < ir->nr_stores && !w.bad; m++)
			if (astra_nest_loads_elsewhere(ir->stores[m].value, s->buf, s->index))
				astra_nest_refuse(&w, s->line, "a stored buffer is read at another place");
		if (!w.bad)
			check_value(&w, s->value, s->line);
	}
	rlo = ir->rows_lo ? ir->rows_lo : "0";
	clo = ir->cols_lo ? ir->cols_lo : "0";
	for (j = 0; j < ir->nr_stores && !w.bad; j++)
		nv = astra_nest_row_loads(&w, ir->stores[j].value, v, nv);
	if (w.bad)
		goto out;
	if (rows > 1 && flat)
		astra_nest_refuse(&w, 0, "a flat space (one row: nothing a strip of rows would reuse)");
	else if (rows > 1 && !rows_reused(&w, v, nv))
		astra_nest_refuse(&w, ir->nr_stores ? ir->stores[0].line : 0,
				  "no input read at several rows (nothing a strip of rows would reuse)");
	if (w.bad)
		goto out;
	if (rows > 1) {
		if (strip(&w, type, v, nv, rows, rlo, clo, &b) < 0)
			goto out;
		goto done;
	}

	group_loop(ir, type, 1, flat, rlo, clo, &b);
	w.name_r = "astra_r";
	w.name_c = "astra_c";
	astra_buf_addf(&b, "\t\tif (astra_c >= (%s) && astra_c + %d < (%s)) {\n", clo, VEC - 1, ir->cols);
	shifted_loads(&w, v, nv, ir->stores[0].index, base, shift);
	/* the loads along the row: a vector where aligned, else the same four elements */
	for (j = 0; j < nv; j++) {
		if (base[j] >= 0)
			continue;
		vector_load(&w, type, v[j], j, &b);
	}
	/* every store's value per column, then the stores */
	for (l = 0; l < VEC; l++) {
		snprintf(lane, sizeof(lane), "(astra_c + %d)", l);
		w.name_c = lane;
		for (j = 0; j < nv; j++) {
			/* a shifted load: its base's element where it falls there, else its own read */
			int e = base[j] < 0 ? l : l + shift[j];
			if (e < 0 || e >= VEC)
				continue;
			w.rep_load[w.nr_rep] = v[j];
			w.rep_text[w.nr_rep++] = xasprintf("astra_l%d.e[%d]", base[j] < 0 ? (int)j : base[j], e);
		}
		for (j = 0; j < ir->nr_stores; j++) {
			astra_buf_addf(&b, "\t\t\tconst %s astra_v%zu_%d = ", type, j, l);
			astra_nest_emit(&w, ir->stores[j].value, &b);
			astra_buf_adds(&b, ";\n");
		}
		for (j = 0; j < w.nr_rep; j++)
			free(w.rep_text[j]);
		w.nr_rep = 0;
	}
	w.name_c = "astra_c";
	for (j = 0; j < ir->nr_stores; j++) {
		char vname[32];
		snprintf(vname, sizeof(vname), "astra_v%zu_", j);
		vector_store(&w, type, &ir->stores[j], vname, &b);
	}
	/* a group at a border: each column as the original's thread, under its guard */
	astra_buf_addf(&b, "\t\t} else {\n\t\t\tfor (int astra_k = 0; astra_k < %d; astra_k++) {\n", VEC);
	astra_buf_addf(&b, "\t\t\t\tconst %s astra_cc = astra_c + astra_k;\n", flat ? "long long" : "int");
	astra_buf_addf(&b, "\t\t\t\tif (astra_cc >= (%s) && astra_cc < (%s)) {\n", clo, ir->cols);
	w.name_c = "astra_cc";
	astra_nest_emit_stores(&w, type, "\t\t\t\t\t", NULL, &b);
	astra_buf_adds(&b, "\t\t\t\t}\n\t\t\t}\n\t\t}\n\t}\n}\n");
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

int astra_ir_lower_map(const struct astra_ir *ir, const struct astra_kernel *k, const char *type,
		       struct astra_buf *out, struct astra_buf *why)
{
	return lower_map(ir, k, type, 1, out, why);
}

int astra_ir_lower_strip(const struct astra_ir *ir, const struct astra_kernel *k, const char *type,
			 struct astra_buf *out, struct astra_buf *why)
{
	return lower_map(ir, k, type, ASTRA_STRIP_ROWS, out, why);
}
