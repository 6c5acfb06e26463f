/*
 * lift-memo.c - astra_ir_lift (ir.h): the lifting (lift.c's lift_kernel)
 * of the last few kernels, kept and handed out as copies.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "ir/lift.h"
#include "lib/util.h"

/*
 * The last kernels lifted, and what came of it: planning lifts a kernel
 * once for each lowering rule (a third of an --explain's time went to
 * lifting the same kernel again).  A kernel is the same when its struct,
 * text, launch, shapes and place are.
 */
#define LIFT_MEMO 8
static struct lift_memo {
	const struct astra_kernel *k;
	char *text, *block, *grid, *file;
	unsigned line;
	size_t nr_shapes, nr_types;
	int ok;
	char *why;
	struct astra_ir ir;
} memo[LIFT_MEMO];
static size_t memo_next;

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static struct lift_memo *memo_find(const struct astra_kernel *k)
{
	size_t j;
	for (j = 0; j < LIFT_MEMO; j++) {
		struct lift_memo *m = &memo[j];
		if (m->k == k && m->text && same_str(m->text, k->text) && same_str(m->block, k->pragma.block) &&
		    same_str(m->grid, k->pragma.grid) && same_str(m->file, k->file) && m->line == k->line &&
		    m->nr_shapes == k->pragma.nr_shapes && m->nr_types == k->pragma.nr_types)
			return m;
	}
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void memo_put(const struct astra_kernel *k, int ok, const struct astra_ir *ir, const struct astra_buf *why)
{
	struct lift_memo *m = &memo[memo_next++ % LIFT_MEMO];
	free(m->text);
	free(m->block);
	free(m->grid);
	free(m->file);
	free(m->why);
	astra_ir_release(&m->ir);
	m->k = k;
	m->text = dup_or_null(k->text);
	m->block = dup_or_null(k->pragma.block);
	m->grid = dup_or_null(k->pragma.grid);
	m->file = dup_or_null(k->file);
	m->line = k->line;
	m->nr_shapes = k->pragma.nr_shapes;
	m->nr_types = k->pragma.nr_types;
	m->ok = ok;
	m->why = ok ? NULL : xstrdup(why->buf ? why->buf : "");
	if (ok)
		astra_ir_copy(&m->ir, ir);
}

int astra_ir_lift(const struct astra_kernel *k, struct astra_ir *ir, struct astra_buf *why)
{
	struct lift_memo *m = memo_find(k);
	size_t had = why->len;
	int ret;
	if (m) {
		if (m->ok) {
			astra_ir_copy(ir, &m->ir);
			return 0;
		}
		memset(ir, 0, sizeof(*ir));
		astra_buf_adds(why, m->why);
		return -1;
	}
	ret = lift_kernel(k, ir, why);
	if (k->text && !had)
		memo_put(k, ret == 0, ir, why);
	return ret;
}

