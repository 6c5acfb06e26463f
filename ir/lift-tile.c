/*
 * lift-tile.c - 2-D tiles whose rows a thread covers by a loop (see
 * lift.h; doc/lift.md).
 *
 * A block of TILE x ROWS threads takes a TILE x TILE tile of a matrix:
 * each thread has a column (blockIdx.x * TILE + threadIdx.x) and every
 * ROWS-th row of the tile,
 *
 *     for (k = 0; k < TILE; k += ROWS)  ... row blockIdx.y * TILE + threadIdx.y + k ...
 *
 * The loop is part of the mapping, not of the computation: inside it a
 * value that is affine in threadIdx.y, blockIdx.y and k as
 * `z + (threadIdx.y + k + TILE * blockIdx.y) * P` is `z + r * P`.  The
 * rows covered are exactly the grid's when TILE is a multiple of ROWS
 * (checked from the macros and numbers the text gives).
 *
 * A 2-D grid without bounds checks covers the grid's tiles: a launch grid
 * `dim3(W / TX, H / TY)` over tiles of TX columns and TY rows is W x H
 * when every shape of the pragma makes W and H multiples of the tiles.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lift.h"
#include "lib/util.h"

/* Text [b, e) trimmed, in the arena. */
static const char *trimmed(struct lifter *L, const char *b, const char *e)
{
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	return astra_ir_strdup(L->ar, b, (size_t)(e - b));
}

/* Split "dim3(A, B)" into A and B; 0 when s is not that. */
static int dim3_args(struct lifter *L, const char *s, const char **a, const char **b)
{
	const char *p, *comma = NULL, *end;
	int depth = 0;
	if (!s || strncmp(s, "dim3(", 5))
		return 0;
	for (p = s + 5; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth-- == 0)
			break;
		else if (*p == ',' && !depth && !comma)
			comma = p;
		else if (*p == ',' && !depth)
			return 0;   /* dim3(x, y, z) */
	}
	if (!*p || !comma)
		return 0;
	end = p;
	*a = trimmed(L, s + 5, comma);
	*b = trimmed(L, comma + 1, end);
	return 1;
}

void lift_launch_dims(struct lifter *L)
{
	const char *x, *y;
	if (dim3_args(L, L->k->pragma.block, &x, &y)) {
		L->block_x = x;
		L->block_y = y;
	}
}

static int is_word(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

/*
 * The value of a number, a shape's name (shape set `set`, -1: none) or a
 * macro whose body is one of those.  0 when it is anything else.
 */
static int int_of(struct lifter *L, const char *s, long set, int depth, long *v)
{
	char *end;
	const struct astra_macro *m;
	size_t j;
	if (!*s || depth > 4)
		return 0;
	if (isdigit((unsigned char)*s)) {
		*v = strtol(s, &end, 0);
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		return !*end;
	}
	if (!is_word(s))
		return 0;
	if (set >= 0)
		for (j = 0; j < L->k->pragma.shapes[set].nr; j++)
			if (!strcmp(L->k->pragma.shapes[set].items[j].name, s)) {
				const char *t = L->k->pragma.shapes[set].items[j].value;
				return int_of(L, trimmed(L, t, t + strlen(t)), set, depth + 1, v);
			}
	m = astra_env_macro(&L->k->env, s, strlen(s));
	if (m && !m->function_like && m->body)
		return int_of(L, trimmed(L, m->body, m->body + strlen(m->body)), set, depth + 1, v);
	return 0;
}

int lift_tile_loop(struct lifter *L, struct astra_ir_node *init, struct astra_ir_node *step, struct astra_ir_node *lim,
		   const char *text)
{
	char *t;
	long tile, rows;
	int ok;
	if (!L->twod || !L->block_y || L->nr_loops || L->tile_t || !lift_is(init, "0") || lift_is(step, "1"))
		return 0;
	if (!lift_is(step, L->block_y))
		return 0;
	if (lift_depends(lim, "tid.x") || lift_depends(lim, "tid.y") || lift_depends(lim, "bid.x") ||
	    lift_depends(lim, "bid.y") || lift_depends(lim, "r") || lift_depends(lim, "c") || lift_depends(lim, "i"))
		return 0;
	t = lift_text(lim);
	ok = int_of(L, t, -1, 0, &tile) && int_of(L, L->block_y, -1, 0, &rows) && rows > 0 && tile % rows == 0;
	free(t);
	if (ok && L->tile_rows && !lift_is(lim, L->tile_rows))
		lift_fail(L, "two loops over a tile's rows with different heights (%s): `%s`", L->tile_rows, text);
	if (!ok)
		lift_fail(L, "a loop over a tile's rows by the block's %s, but the tile's height is not a multiple of it "
			  "(or not a number the lifter can read): `%s`", L->block_y, text);
	return 1;
}

static int is_num(const struct astra_ir_node *n, const char *s)
{
	return n->kind == IR_NUM && !strcmp(n->s, s);
}

/* The value of a number or a macro whose body is one (0 when s is anything else). */
int lift_int(struct lifter *L, const char *s, long *v)
{
	return int_of(L, s, -1, 0, v);
}

/* n with the zeros the substitutions left folded away: x * 0, x + 0, x - 0, (x * 1). */
static struct astra_ir_node *fold(struct lifter *L, struct astra_ir_node *n)
{
	struct astra_ir_node *a, *b;
	if (n->kind != IR_BIN || n->nr != 2)
		return n;
	a = fold(L, n->a[0]);
	b = fold(L, n->a[1]);
	if (!strcmp(n->s, "*") && (is_num(a, "0") || is_num(b, "0")))
		return lift_num(L, "0");
	if (!strcmp(n->s, "*") && is_num(a, "1"))
		return b;
	if (!strcmp(n->s, "*") && is_num(b, "1"))
		return a;
	if (!strcmp(n->s, "+") && is_num(a, "0"))
		return b;
	if ((!strcmp(n->s, "+") || !strcmp(n->s, "-")) && is_num(b, "0"))
		return a;
	if (a == n->a[0] && b == n->a[1])
		return n;
	return astra_ir_node(L->ar, IR_BIN, n->s, 2, a, b);
}

struct astra_ir_node *lift_fold(struct lifter *L, struct astra_ir_node *n)
{
	return fold(L, n);
}

/* n with the thread atoms of a tile row set: tid.y, the loop's offset, bid.y. */
static struct astra_ir_node *at(struct lifter *L, struct astra_ir_node *n, const char *ty, const char *k, const char *by)
{
	n = lift_replace(L, n, "tid.y", lift_num(L, ty));
	n = lift_replace(L, n, "tile.row", lift_num(L, k));
	return fold(L, lift_replace(L, n, "bid.y", lift_num(L, by)));
}

static int same(struct astra_ir_node *a, struct astra_ir_node *b)
{
	char *t = lift_text(b);
	int r = lift_is(a, t);
	free(t);
	return r;
}

struct astra_ir_node *lift_tile_row(struct lifter *L, struct astra_ir_node *v)
{
	struct astra_ir_node *z, *p, *row, *coef;
	char *t;
	if (!L->tile_t || !lift_depends(v, "tid.y"))
		return v;
	z = at(L, v, "0", "0", "0");
	p = lift_bin(L, "-", at(L, v, "1", "0", "0"), z);
	if (lift_is(p, "0"))
		return v;
	row = lift_bin(L, "+", lift_bin(L, "+", lift_atom(L, "tid.y"), lift_atom(L, "tile.row")),
		       lift_bin(L, "*", L->tile_t, lift_atom(L, "bid.y")));
	if (!same(v, lift_bin(L, "+", z, lift_bin(L, "*", row, p))))
		return v;   /* not the tile's row: left to the caller (threadIdx.y + k of a shared tile) */
	t = lift_text(p);
	if (!strcmp(t, "1"))
		coef = NULL;
	else if (is_word(t))
		coef = astra_ir_node(L->ar, IR_NAME, astra_ir_strdup(L->ar, t, strlen(t)), 0);
	else
		coef = p;
	free(t);
	row = astra_ir_node(L->ar, IR_ATOM, "r", 0);
	if (coef)
		row = lift_bin(L, "*", row, coef);
	return is_num(z, "0") ? row : lift_bin(L, "+", z, row);
}

const char *lift_grid_extent(struct lifter *L, int axis)
{
	const char *gx, *gy, *g, *slash, *w, *tile, *want;
	long vw, vt;
	size_t j;
	if (!dim3_args(L, L->k->pragma.grid, &gx, &gy))
		return NULL;
	g = axis ? gy : gx;
	want = axis ? (L->tile_rows ? L->tile_rows : L->block_y) : L->block_x;
	if (!want || !(slash = strchr(g, '/')) || strchr(slash + 1, '/'))
		return NULL;
	w = trimmed(L, g, slash);
	tile = trimmed(L, slash + 1, g + strlen(g));
	if (!is_word(w) || strcmp(tile, want))
		return NULL;
	for (j = 0; j < L->k->pragma.nr_shapes; j++) {
		if (!int_of(L, w, (long)j, 0, &vw) || !int_of(L, tile, (long)j, 0, &vt) || vt <= 0)
			lift_fail(L, "no bounds check on the %s: the grid (`%s`) covers them when %s is a multiple of %s, "
				  "which the lifter cannot check", axis ? "rows" : "columns", g, w, tile);
		if (vw % vt)
			lift_fail(L, "no bounds check on the %s: the grid covers (%s / %s) * %s of them, and the shape %s=%ld "
				  "is not a multiple of %s", axis ? "rows" : "columns", w, tile, tile, w, vw, tile);
	}
	if (!L->k->pragma.nr_shapes)
		lift_fail(L, "no bounds check on the %s, and no shapes in the pragma to tell that %s is a multiple of %s",
			  axis ? "rows" : "columns", w, tile);
	return w;
}
