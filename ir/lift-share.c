/*
 * lift-share.c - values a block's threads pass to each other (see
 * lift.h; doc/lift.md).
 *
 * A staged transpose.  A square block of threads (2-D tiles whose height
 * is the block's x, or a 2-D grid of square blocks) stores a value of its
 * element (r, c) in a shared tile at [y][x] (y = threadIdx.y, plus the
 * tile loop's offset), passes a barrier, and reads the tile at [x][y]:
 * the element another thread of the block stored.  That thread's r and c
 * are known, so the value read is the stored value at
 * r = S * blockIdx.y + threadIdx.x, c = S * blockIdx.x + y (S the side),
 * in the reader's thread indices.  A store made of such values only has
 * its rows on threadIdx.x and its columns on y: lift_share_swapped reads
 * it in those logical indices (checked on the canonical polynomials: no
 * thread index may be left).  Anything else read at another place than
 * the one stored stays refused (lift.c).
 *
 * Per-block partial results.  A thread per element whose values are
 * combined over the block (a shared-memory tree) and stored at
 * out[blockIdx.x] is a row per block: out[r] = sum_c(x[r * B + c]),
 * B the launch's block, rows the launch's grid; a summed
 * `i < n ? x[i] : 0` keeps its bound inside the sum (the last block's
 * row is cut by it).
 */
#include "autoconfig.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lift.h"
#include "lib/util.h"

static struct astra_ir_node *word(struct lifter *L, const char *s)
{
	return astra_ir_node(L->ar, isdigit((unsigned char)*s) ? IR_NUM : IR_NAME, s, 0);
}

/* The side of a square block of threads: the launch's block x, which the tile's height (2-D tiles) or the
 * block's y (a 2-D grid) equals.  NULL when the block is not square or not known. */
static struct astra_ir_node *side(struct lifter *L)
{
	const char *y;
	char *t = NULL;
	long a, b;
	int same;
	if (!L->block_x)
		return NULL;
	if (L->ir->mapping == IR_MAP_2D_TILE && L->tile_t)
		y = t = lift_text(L->tile_t);
	else if (L->ir->mapping == IR_MAP_2D && L->block_y)
		y = L->block_y;
	else
		return NULL;
	same = !strcmp(y, L->block_x) || (lift_int(L, y, &a) && lift_int(L, L->block_x, &b) && a == b);
	free(t);
	return same ? word(L, L->block_x) : NULL;
}

/* The row of a thread's place in the tile: threadIdx.y, plus the tile loop's offset. */
static struct astra_ir_node *tile_y(struct lifter *L)
{
	return L->tile_t ? lift_bin(L, "+", lift_atom(L, "tid.y"), lift_atom(L, "tile.row")) : lift_atom(L, "tid.y");
}

static const char *const raw[] = {"tid.x", "tid.y", "tid.z", "tile.row", "lane", "warp", "i", NULL};

static int depends_any(const struct astra_ir_node *n, const char *const *atoms)
{
	size_t j;
	for (j = 0; atoms[j]; j++)
		if (lift_depends(n, atoms[j]))
			return 1;
	return 0;
}

static struct astra_ir_node *value_of(struct lifter *L, struct astra_ir_node *n, struct astra_ir_node *s, int swapped,
				      int *ok);

struct astra_ir_node *lift_share_staged(struct lifter *L, struct lvar *v, const char *place)
{
	struct astra_ir_node *s = side(L), *y, *x, *val;
	char *yt, *xt, *at, *tr;
	int ok = 1;
	if (!s || v->nr_stored != 1 || L->barriers <= v->barrier_at || !v->at)
		return NULL;
	val = depends_any(v->val, raw) ? value_of(L, v->val, s, 0, &ok) : v->val;   /* indices written in one expression */
	if (!ok || depends_any(val, raw))
		return NULL;
	y = tile_y(L);
	x = lift_atom(L, "tid.x");
	yt = lift_text(y);
	xt = lift_text(x);
	at = xasprintf("[%s][%s]", yt, xt);
	tr = xasprintf("[%s][%s]", xt, yt);
	ok = !strcmp(v->at, at) && !strcmp(place, tr);
	free(yt);
	free(xt);
	free(at);
	free(tr);
	if (!ok)
		return NULL;
	/* [x][y] was stored by the block's thread at [y][x]: its r and c, in this thread's indices */
	val = lift_replace(L, val, "r", lift_bin(L, "+", lift_bin(L, "*", s, lift_atom(L, "bid.y")), x));
	return lift_replace(L, val, "c", lift_bin(L, "+", lift_bin(L, "*", s, lift_atom(L, "bid.x")), y));
}

static const char *const thread[] = {"tid.x", "tid.y", "tid.z", "bid.x", "bid.y", "bid.z", "tile.row", "lane", "warp",
				     "bdim.x", "bdim.y", NULL};

/*
 * An index in logical indices, from the thread indices of a square block:
 * swapped, r on threadIdx.x and c on y (the store of a staged transpose);
 * else c on threadIdx.x and r on y (a 2-D grid's own, written in one
 * expression).  *ok = 0 when it is not one.
 */
static struct astra_ir_node *index_of(struct lifter *L, struct astra_ir_node *e, struct astra_ir_node *s, int swapped,
				      int *ok)
{
	struct astra_ir_node *z, *ry, *cx;
	char *a, *b;
	/* y = (the axis on y) - S * (its block index); threadIdx.x likewise */
	ry = lift_bin(L, "-", lift_atom(L, swapped ? "c" : "r"),
		      lift_bin(L, "*", s, lift_atom(L, swapped ? "bid.x" : "bid.y")));
	cx = lift_bin(L, "-", lift_atom(L, swapped ? "r" : "c"),
		      lift_bin(L, "*", s, lift_atom(L, swapped ? "bid.y" : "bid.x")));
	e = lift_replace(L, e, "bdim.x", s);
	if (!L->tile_t)
		e = lift_replace(L, e, "bdim.y", s);
	e = lift_replace(L, e, "tid.x", cx);
	if (L->tile_t)
		e = lift_replace(L, e, "tile.row", lift_bin(L, "-", ry, lift_atom(L, "tid.y")));
	else
		e = lift_replace(L, e, "tid.y", ry);
	z = lift_replace(L, e, "bid.x", lift_num(L, "0"));
	z = lift_replace(L, z, "bid.y", lift_num(L, "0"));
	z = lift_fold(L, lift_replace(L, z, "tid.y", lift_num(L, "0")));
	a = lift_text(e);
	b = lift_text(z);
	if (strcmp(a, b) || depends_any(z, thread))
		*ok = 0;
	free(a);
	free(b);
	return z;
}

/* The value with its loads' indices in logical indices (index_of); *ok = 0 when a thread index is left outside them. */
static struct astra_ir_node *value_of(struct lifter *L, struct astra_ir_node *n, struct astra_ir_node *s, int swapped,
				      int *ok)
{
	struct astra_ir_node *c;
	size_t j;
	if (n->kind == IR_LOAD) {
		c = astra_ir_node(L->ar, IR_LOAD, n->s, 1, !depends_any(n->a[0], raw) ? n->a[0] :
				 index_of(L, n->a[0], s, swapped, ok));
		c->line = n->line;
		return c;
	}
	if (n->kind == IR_ATOM && depends_any(n, thread))
		*ok = 0;
	if (!n->nr)
		return n;
	c = astra_ir_alloc(L->ar, sizeof(*c));
	*c = *n;
	c->a = astra_ir_alloc(L->ar, n->nr * sizeof(*c->a));
	for (j = 0; j < n->nr; j++)
		c->a[j] = value_of(L, n->a[j], s, swapped, ok);
	return c;
}

int lift_share_swapped(struct lifter *L, struct astra_ir_node **index, struct astra_ir_node **val)
{
	static const char *const logical[] = {"r", "c", "i", NULL};
	static const char *const mine[] = {"tid.x", "tid.y", "tile.row", NULL};
	struct astra_ir_node *s, *ix, *v;
	int ok = 1;
	if (L->ir->mapping != IR_MAP_2D && L->ir->mapping != IR_MAP_2D_TILE)
		return 0;
	if (!(depends_any(*index, mine) || depends_any(*val, mine)) || depends_any(*index, logical) ||
	    depends_any(*val, logical) || !(s = side(L)))
		return 0;
	ix = index_of(L, *index, s, 1, &ok);
	v = value_of(L, *val, s, 1, &ok);
	if (!ok)
		return 0;
	*index = ix;
	*val = v;
	L->uses_c = 1;
	return 1;
}

void lift_share_segment(struct lifter *L, struct astra_ir_node *place, struct astra_ir_node **val, int accumulate)
{
	struct astra_ir_node *v = *val, *body, *red;
	const char *b = L->k->pragma.block, *g = L->k->pragma.grid;
	if (!(v->kind == IR_PARTIAL && (v->scope & 15) == IR_SCOPE_BLOCK && !strcmp(v->axis, "i") &&
	      lift_depends(place->a[0], "bid.x")))
		return;
	if (accumulate || !lift_is(place->a[0], "bid.x") || L->ir->mapping != IR_MAP_THREAD || L->split || L->nr_loops)
		lift_fail(L, "stores each block's partial %s at `%s[...]` in a way not modelled: only at `%s[blockIdx.x]`, "
			  "outside loops, of a thread per element", v->s, place->s, place->s);
	if (!b || !g || !strncmp(b, "dim3", 4) || !strncmp(g, "dim3", 4))
		lift_fail(L, "stores each block's partial %s at `%s[blockIdx.x]`: a row per block needs the pragma's "
			  "launch, a grid and a block of one dimension", v->s, place->s);
	if (L->ext_i && L->ext_i != L->sel_bound)
		lift_fail(L, "per-block partial results of threads bounded otherwise than by the summed `i < n ? x[i] : 0`");
	if (L->segment && !lift_is(L->segment, b))
		lift_fail(L, "per-block partial results of two block sizes");
	body = v->a[0];
	if (L->ext_i) {
		/* the bound cuts the last block's row: it stays in the sum */
		body = astra_ir_node(L->ar, IR_COND, NULL, 3, lift_bin(L, "<", lift_atom(L, "i"), L->ext_i), body,
				     lift_num(L, "0"));
		L->ext_i = NULL;
	}
	red = astra_ir_node(L->ar, IR_RED, v->s, 1, body);
	red->axis = "c";
	red->scope = IR_SCOPE_BLOCK;
	place->a[0] = lift_atom(L, "r");
	L->segment = word(L, b);
	*val = red;
}

int lift_share_finish(struct lifter *L)
{
	struct astra_ir *ir = L->ir;
	if (!L->segment)
		return 0;
	if (L->ext_i || L->lo_i || L->ext_r)
		lift_fail(L, "per-block partial results with a bound on the element index besides the sum's");
	lift_rename_all(L, "i", lift_bin(L, "+", lift_bin(L, "*", lift_atom(L, "r"), L->segment), lift_atom(L, "c")));
	ir->mapping = IR_MAP_BLOCK;
	ir->one_per_thread = 1;
	ir->cols = lift_ext(L, L->segment);
	ir->rows = L->k->pragma.grid;
	L->uses_c = 1;
	return 1;
}
