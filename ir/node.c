/*
 * node.c - the IR's arena and node constructor (see ir.h).  Every node,
 * node array and string of one lifting is allocated here and freed at
 * once by astra_ir_arena_release.
 */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "lib/util.h"

void *astra_ir_alloc(struct astra_ir_arena *ar, size_t n)
{
	void *p = xcalloc(1, n ? n : 1);
	ar->items = astra_grow(ar->items, sizeof(*ar->items), ar->nr + 1, &ar->alloc);
	ar->items[ar->nr++] = p;
	return p;
}

const char *astra_ir_strdup(struct astra_ir_arena *ar, const char *s, size_t n)
{
	char *p = astra_ir_alloc(ar, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

struct astra_ir_node *astra_ir_node(struct astra_ir_arena *ar, enum astra_ir_kind kind, const char *s, size_t nr, ...)
{
	struct astra_ir_node *n = astra_ir_alloc(ar, sizeof(*n));
	va_list ap;
	size_t j;
	n->kind = kind;
	n->s = s;
	n->a = astra_ir_alloc(ar, (nr ? nr : 1) * sizeof(*n->a));
	n->nr = nr;
	va_start(ap, nr);
	for (j = 0; j < nr; j++)
		n->a[j] = va_arg(ap, struct astra_ir_node *);
	va_end(ap);
	return n;
}

void astra_ir_arena_release(struct astra_ir_arena *ar)
{
	size_t j;
	for (j = 0; j < ar->nr; j++)
		free(ar->items[j]);
	free(ar->items);
	memset(ar, 0, sizeof(*ar));
}

/* Copies keep a lifted value's sharing: a pointer map, open addressing. */
struct copymap {
	const struct astra_ir_node **from;
	struct astra_ir_node **to;
	size_t cap, nr;
};

static size_t map_slot(const struct copymap *m, const struct astra_ir_node *p)
{
	size_t h = (size_t)(((uintptr_t)p >> 4) * (uintptr_t)0x9E3779B97F4A7C15ull) & (m->cap - 1);
	while (m->from[h] && m->from[h] != p)
		h = (h + 1) & (m->cap - 1);
	return h;
}

static void map_put(struct copymap *m, const struct astra_ir_node *from, struct astra_ir_node *to)
{
	size_t j;
	if (2 * (m->nr + 1) > m->cap) {
		struct copymap g = {NULL, NULL, m->cap ? 2 * m->cap : 64, 0};
		g.from = xcalloc(g.cap, sizeof(*g.from));
		g.to = xcalloc(g.cap, sizeof(*g.to));
		for (j = 0; j < m->cap; j++)
			if (m->from[j])
				map_put(&g, m->from[j], m->to[j]);
		free(m->from);
		free(m->to);
		*m = g;
	}
	j = map_slot(m, from);
	m->from[j] = from;
	m->to[j] = to;
	m->nr++;
}

static const char *dup_str(struct astra_ir_arena *ar, const char *s)
{
	return s ? astra_ir_strdup(ar, s, strlen(s)) : NULL;
}

static struct astra_ir_node *copy_node(struct astra_ir_arena *ar, struct copymap *m, const struct astra_ir_node *n)
{
	struct astra_ir_node *c;
	size_t j;
	if (!n)
		return NULL;
	if (m->cap && m->from[j = map_slot(m, n)] == n)
		return m->to[j];
	c = astra_ir_alloc(ar, sizeof(*c));
	*c = *n;
	c->s = dup_str(ar, n->s);
	c->axis = dup_str(ar, n->axis);
	c->a = astra_ir_alloc(ar, (n->nr ? n->nr : 1) * sizeof(*c->a));
	for (j = 0; j < n->nr; j++)
		c->a[j] = copy_node(ar, m, n->a[j]);
	map_put(m, n, c);
	return c;
}

void astra_ir_copy(struct astra_ir *dst, const struct astra_ir *src)
{
	struct copymap m = {NULL, NULL, 0, 0};
	size_t j;
	memset(dst, 0, sizeof(*dst));
	dst->mapping = src->mapping;
	dst->one_per_thread = src->one_per_thread;
	dst->rows = dup_str(&dst->arena, src->rows);
	dst->cols = dup_str(&dst->arena, src->cols);
	dst->inner = dup_str(&dst->arena, src->inner);
	dst->rows_lo = dup_str(&dst->arena, src->rows_lo);
	dst->cols_lo = dup_str(&dst->arena, src->cols_lo);
	dst->cols_first = copy_node(&dst->arena, &m, src->cols_first);
	if (src->nr_stores) {
		dst->stores = xcalloc(src->nr_stores, sizeof(*dst->stores));
		dst->nr_stores = dst->alloc_stores = src->nr_stores;
	}
	for (j = 0; j < src->nr_stores; j++) {
		dst->stores[j] = src->stores[j];
		dst->stores[j].buf = dup_str(&dst->arena, src->stores[j].buf);
		dst->stores[j].index = copy_node(&dst->arena, &m, src->stores[j].index);
		dst->stores[j].value = copy_node(&dst->arena, &m, src->stores[j].value);
	}
	free(m.from);
	free(m.to);
}

void astra_ir_release(struct astra_ir *ir)
{
	astra_ir_arena_release(&ir->arena);
	free(ir->stores);
	memset(ir, 0, sizeof(*ir));
}

const char *astra_ir_mapping_name(enum astra_ir_mapping m)
{
	switch (m) {
	case IR_MAP_THREAD: return "a thread per element";
	case IR_MAP_THREAD_ROW: return "a thread per row";
	case IR_MAP_GRID_STRIDE: return "a grid-stride loop";
	case IR_MAP_BLOCK: return "a block per row";
	case IR_MAP_WARP: return "a warp per row";
	case IR_MAP_2D_ROWS: return "2-D blocks, threadIdx.y per row";
	case IR_MAP_2D: return "a 2-D grid, a thread per element";
	case IR_MAP_2D_TILE: return "2-D tiles, a thread per column and a loop over the tile's rows";
	default: return "none";
	}
}
