/*
 * node.c - the IR's arena and node constructor (see ir.h).  Every node,
 * node array and string of one lifting is allocated here and freed at
 * once by astra_ir_arena_release.
 */
#include "autoconfig.h"

#include <stdarg.h>
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
