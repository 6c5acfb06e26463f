/*
 * lower-transpose.c - a transpose generated from its lifted form (see
 * lower-transpose.h; doc/lift.md).
 *
 * For `out[c,r] = v(r,c)  (rows=R, cols=C)`, where v reads its buffers
 * at [r,c] only (the naive transpose, or one that scales or converts on
 * the way), the kernel it writes has each block of 32 x 8 threads take a
 * 32 x 32 tile: four coalesced rounds compute v(r,c) into a shared tile
 * (one padding column against bank conflicts), a barrier, four coalesced
 * rounds store the tile transposed.  Both rounds check the original's
 * bounds (r < R, c < C) for every element, so it writes exactly where the
 * original writes.  Launch: grid dim3((C + 31) / 32, (R + 31) / 32),
 * block dim3(32, 8).  The wide form (rule lower-transpose-wide) takes a
 * 64 x 64 tile per block of 32 x 8, two elements a thread each way,
 * moved in pairs where aligned (wide_body): on an H200 it transposes
 * 8192 x 8192 floats in 136 us where the 32 x 32 tile takes 154.
 */
#include "autoconfig.h"

#include <string.h>

#include "ir/lower-transpose.h"
#include "lib/util.h"

struct tw {
	struct astra_buf *why;
	int bad;
	int pair;                 /* >= 0: a load is element pair of its buffer's pair astra_p_<buf> */
};

static void refuse(struct tw *w, const char *what)
{
	if (!w->bad)
		astra_buf_adds(w->why, what);
	w->bad = 1;
}

static void emit(struct tw *w, const struct astra_ir_node *n, struct astra_buf *out)
{
	size_t j;
	switch (n->kind) {
	case IR_NUM:
	case IR_NAME:
		astra_buf_adds(out, n->s);
		return;
	case IR_ATOM:
		if (!strcmp(n->s, "r"))
			astra_buf_adds(out, "astra_r");
		else if (!strcmp(n->s, "c"))
			astra_buf_adds(out, w->pair == 1 ? "(astra_c + 1)" : "astra_c");
		else
			refuse(w, "a value of a thread index");
		return;
	case IR_LOAD:
		if (w->pair >= 0) {
			/* every load is at [r,c] (astra_ir_is_transpose): the pair loaded for (r, c), (r, c + 1) */
			astra_buf_addf(out, "astra_p_%s.e[%d]", n->s, w->pair);
			return;
		}
		astra_buf_addf(out, "%s[", n->s);
		emit(w, n->a[0], out);
		astra_buf_addch(out, ']');
		return;
	case IR_BIN:
		astra_buf_addch(out, '(');
		emit(w, n->a[0], out);
		astra_buf_addf(out, " %s ", n->s);
		emit(w, n->a[1], out);
		astra_buf_addch(out, ')');
		return;
	case IR_UN:
	case IR_CAST:   /* a local's declared type around a literal */
		astra_buf_addf(out, n->kind == IR_CAST ? "((%s)" : "(%s", n->s);
		emit(w, n->a[0], out);
		astra_buf_addch(out, ')');
		return;
	case IR_COND:
		astra_buf_addch(out, '(');
		emit(w, n->a[0], out);
		astra_buf_adds(out, " ? ");
		emit(w, n->a[1], out);
		astra_buf_adds(out, " : ");
		emit(w, n->a[2], out);
		astra_buf_addch(out, ')');
		return;
	case IR_CALL:
		astra_buf_addf(out, "%s(", n->s);
		for (j = 0; j < n->nr; j++) {
			if (j)
				astra_buf_adds(out, ", ");
			emit(w, n->a[j], out);
		}
		astra_buf_addch(out, ')');
		return;
	default:
		refuse(w, "a node the lowering does not emit (a reduction, a pointer, a shared array)");
		return;
	}
}

/* Every load of n is at [r,c] (its index printed alone reads `[r,c]` in the one-line form). */
static int loads_at_rc(const struct astra_ir_node *n, const char *rc)
{
	size_t j;
	if (n->kind == IR_LOAD) {
		struct astra_buf t = ASTRA_BUF_INIT;
		int ok;
		astra_ir_print_expr(n->a[0], &t);
		/* the lifter's offsets: `... + 0` */
		if (t.len > 4 && !strcmp(t.buf + t.len - 4, " + 0"))
			t.buf[t.len -= 4] = 0;
		ok = t.buf && !strcmp(t.buf, rc);
		astra_buf_release(&t);
		return ok;
	}
	for (j = 0; j < n->nr; j++)
		if (!loads_at_rc(n->a[j], rc))
			return 0;
	return 1;
}

int astra_ir_is_transpose(const struct astra_ir *ir, struct astra_buf *why)
{
	struct astra_buf line = ASTRA_BUF_INIT, rc = ASTRA_BUF_INIT, cr = ASTRA_BUF_INIT;
	const struct astra_ir_store *s = ir->nr_stores == 1 ? &ir->stores[0] : NULL;
	int ok = 0;
	if (!s) {
		astra_buf_addf(why, "%zu stores; a transpose has one", ir->nr_stores);
		return 0;
	}
	if (!ir->rows || !ir->cols) {
		astra_buf_adds(why, "not a rows x columns computation");
		return 0;
	}
	if (s->accumulate) {
		astra_buf_adds(why, "an atomic store");
		return 0;
	}
	/* the one-line form writes c*rows + r as [c,r]: the printer's canonical view of the index */
	astra_ir_print(ir, &line);
	astra_buf_addf(&cr, "%s[c,r] = ", s->buf);
	if (!line.buf || strncmp(line.buf, cr.buf, cr.len)) {
		astra_buf_adds(why, "the store is not out[c * rows + r] (`out[c,r]`)");
		goto out;
	}
	/* the canonical text of r * cols + c, as the lifter's own loads print it */
	{
		struct astra_ir_arena ar = { NULL, 0, 0 };
		struct astra_ir_node *e = astra_ir_node(&ar, IR_BIN, "+", 2,
							astra_ir_node(&ar, IR_BIN, "*", 2, astra_ir_node(&ar, IR_ATOM, "r", 0),
								      astra_ir_node(&ar, IR_NAME, ir->cols, 0)),
							astra_ir_node(&ar, IR_ATOM, "c", 0));
		astra_ir_print_expr(e, &rc);
		astra_ir_arena_release(&ar);
	}
	if (!loads_at_rc(s->value, rc.buf)) {
		astra_buf_adds(why, "the value reads a buffer elsewhere than at [r,c]");
		goto out;
	}
	ok = 1;
out:
	astra_buf_release(&line);
	astra_buf_release(&rc);
	astra_buf_release(&cr);
	return ok;
}

static void wide_body(struct tw *w, const struct astra_ir *ir, const char *elem, struct astra_buf *b);

int astra_ir_lower_transpose(const struct astra_ir *ir, const struct astra_kernel *k, const char *elem, int wide,
			     struct astra_buf *out, struct astra_buf *why)
{
	struct tw w = { why, 0, -1 };
	struct astra_buf body = ASTRA_BUF_INIT, val = ASTRA_BUF_INIT, at = ASTRA_BUF_INIT;
	size_t sig = k->body_start > k->start ? k->body_start - k->start : 0;
	const struct astra_ir_store *s;

	if (!astra_ir_is_transpose(ir, why))
		return -1;
	s = &ir->stores[0];
	if (wide) {
		wide_body(&w, ir, elem, &body);
		goto done;
	}
	emit(&w, s->value, &val);
	emit(&w, s->index, &at);
	astra_buf_addf(&body,
		       "{\n"
		       "\t/* astra-cc lowering: transpose through a 32x32 tile in shared memory */\n"
		       "\t__shared__ %s astra_tile[32][33];\n"
		       "\tconst long long astra_r0 = (long long)blockIdx.y * 32, astra_c0 = (long long)blockIdx.x * 32;\n"
		       "#pragma unroll\n"
		       "\tfor (int astra_k = 0; astra_k < 32; astra_k += 8) {\n"
		       "\t\tconst long long astra_r = astra_r0 + astra_k + threadIdx.y;\n"
		       "\t\tconst long long astra_c = astra_c0 + threadIdx.x;\n"
		       "\t\tif (astra_r < (long long)(%s) && astra_c < (long long)(%s))\n"
		       "\t\t\tastra_tile[astra_k + threadIdx.y][threadIdx.x] = %s;\n"
		       "\t}\n"
		       "\t__syncthreads();\n"
		       "#pragma unroll\n"
		       "\tfor (int astra_k = 0; astra_k < 32; astra_k += 8) {\n"
		       "\t\tconst long long astra_r = astra_r0 + threadIdx.x;\n"
		       "\t\tconst long long astra_c = astra_c0 + astra_k + threadIdx.y;\n"
		       "\t\tif (astra_r < (long long)(%s) && astra_c < (long long)(%s))\n"
		       "\t\t\t%s[%s] = astra_tile[threadIdx.x][astra_k + threadIdx.y];\n"
		       "\t}\n"
		       "}\n",
		       elem, ir->rows, ir->cols, val.buf ? val.buf : "", ir->rows, ir->cols, s->buf, at.buf ? at.buf : "");
done:
	astra_buf_release(&val);
	astra_buf_release(&at);
	if (w.bad) {
		astra_buf_release(&body);
		return -1;
	}
	astra_buf_add(out, k->text, sig);
	astra_buf_add(out, body.buf, body.len);
	astra_buf_release(&body);
	return 0;
}

/* The buffers v loads (each at [r,c]), once each, into names[0..nr); returns the new nr. */
static size_t loaded(const struct astra_ir_node *n, const char **names, size_t nr, size_t most)
{
	size_t j;
	if (n->kind == IR_LOAD) {
		for (j = 0; j < nr; j++)
			if (!strcmp(names[j], n->s))
				return nr;
		if (nr < most)
			names[nr++] = n->s;
		return nr;
	}
	for (j = 0; j < n->nr; j++)
		nr = loaded(n->a[j], names, nr, most);
	return nr;
}

/* The tile's two elements of the thread's pair from v (the second under c + 1 < cols where guarded). */
static void tile_pair(struct tw *w, const struct astra_ir *ir, const char *indent, int guarded, struct astra_buf *b)
{
	int e;
	for (e = 0; e < 2; e++) {
		if (e && guarded)
			astra_buf_addf(b, "%sif (astra_c + 1 < (long long)(%s))\n\t", indent, ir->cols);
		astra_buf_addf(b, "%sastra_tile[astra_k + threadIdx.y][2 * threadIdx.x + %d] = ", indent, e);
		w->pair = e;
		emit(w, ir->stores[0].value, b);
		w->pair = -1;
		astra_buf_adds(b, ";\n");
	}
}

/*
 * A tile wholly inside, both extents even and every buffer aligned to a
 * pair: no bounds and no alignment to test per element, so each thread's
 * eight pair loads (and eight pair stores) are issued back to back.  The
 * condition is the same for the whole block (its barrier included).
 */
static void interior_tile(struct tw *w, const struct astra_ir *ir, const char **names, size_t nr, struct astra_buf *b)
{
	const struct astra_ir_store *s = &ir->stores[0];
	size_t j;
	astra_buf_addf(b, "\tif (astra_r0 + 64 <= (long long)(%s) && astra_c0 + 64 <= (long long)(%s) && (%s) %% 2 == 0 && "
			  "(%s) %% 2 == 0", ir->rows, ir->cols, ir->rows, ir->cols);
	for (j = 0; j < nr; j++)
		astra_buf_addf(b, " &&\n\t    ((unsigned long long)%s & (sizeof(astra_pair) - 1)) == 0", names[j]);
	astra_buf_addf(b, " &&\n\t    ((unsigned long long)%s & (sizeof(astra_pair) - 1)) == 0) {\n", s->buf);
	astra_buf_adds(b, "#pragma unroll\n\t\tfor (int astra_k = 0; astra_k < 64; astra_k += 8) {\n"
			  "\t\t\tconst long long astra_r = astra_r0 + astra_k + threadIdx.y;\n"
			  "\t\t\tconst long long astra_c = astra_c0 + 2 * threadIdx.x;\n");
	for (j = 0; j < nr; j++)
		astra_buf_addf(b, "\t\t\tconst astra_pair astra_p_%s = *(const astra_pair *)&%s[astra_r * (%s) + astra_c];\n",
			       names[j], names[j], ir->cols);
	tile_pair(w, ir, "\t\t\t", 0, b);
	astra_buf_adds(b, "\t\t}\n\t\t__syncthreads();\n#pragma unroll\n"
			  "\t\tfor (int astra_k = 0; astra_k < 64; astra_k += 8) {\n"
			  "\t\t\tconst long long astra_r = astra_r0 + 2 * threadIdx.x;\n"
			  "\t\t\tconst long long astra_c = astra_c0 + astra_k + threadIdx.y;\n"
			  "\t\t\tastra_pair astra_o;\n"
			  "\t\t\tastra_o.e[0] = astra_tile[2 * threadIdx.x][astra_k + threadIdx.y];\n"
			  "\t\t\tastra_o.e[1] = astra_tile[2 * threadIdx.x + 1][astra_k + threadIdx.y];\n");
	astra_buf_addf(b, "\t\t\t*(astra_pair *)&%s[", s->buf);
	emit(w, s->index, b);
	astra_buf_adds(b, "] = astra_o;\n\t\t}\n\t\treturn;\n\t}\n");
}

/*
 * The wide tile: 64 x 64 per block of 32 x 8 threads, each thread two
 * consecutive columns of 8 of the tile's rows on the way in (each buffer
 * read as one pair where its place is aligned to the pair and both
 * columns are inside, else element by element under the bounds) and two
 * consecutive rows of 8 of its columns on the way out (one pair stored
 * where aligned and inside, else one by one); a tile wholly inside
 * takes interior_tile's path, with no test per element.
 */
static void wide_body(struct tw *w, const struct astra_ir *ir, const char *elem, struct astra_buf *b)
{
	const struct astra_ir_store *s = &ir->stores[0];
	const char *names[16];
	struct astra_buf interior = ASTRA_BUF_INIT;
	size_t nr = loaded(s->value, names, 0, 16), j;
	if (nr == 16) {
		refuse(w, "more than 15 buffers read");
		return;
	}
	interior_tile(w, ir, names, nr, &interior);
	astra_buf_addf(b,
		       "{\n"
		       "\t/* astra-cc lowering: transpose through a 64x64 tile in shared memory, 2 elements a thread */\n"
		       "\tstruct alignas(2 * sizeof(%s)) astra_pair { %s e[2]; };\n"
		       "\t__shared__ %s astra_tile[64][65];\n"
		       "\t/* 32-bit products (blocks below 2^26): with 64-bit ones nvcc splits the pair stores */\n"
		       "\tconst long long astra_r0 = (long long)(blockIdx.y * 64u), astra_c0 = (long long)(blockIdx.x * 64u);\n"
		       "%s"
		       "#pragma unroll\n"
		       "\tfor (int astra_k = 0; astra_k < 64; astra_k += 8) {\n"
		       "\t\tconst long long astra_r = astra_r0 + astra_k + threadIdx.y;\n"
		       "\t\tconst long long astra_c = astra_c0 + 2 * threadIdx.x;\n"
		       "\t\tif (astra_r >= (long long)(%s) || astra_c >= (long long)(%s))\n"
		       "\t\t\tcontinue;\n",
		       elem, elem, elem, interior.buf ? interior.buf : "", ir->rows, ir->cols);
	astra_buf_release(&interior);
	for (j = 0; j < nr; j++) {
		astra_buf_addf(b, "\t\tastra_pair astra_p_%s;\n\t\t{\n\t\t\tconst %s *astra_a = &%s[astra_r * (%s) + astra_c];\n",
			       names[j], elem, names[j], ir->cols);
		astra_buf_addf(b, "\t\t\tif (astra_c + 1 < (long long)(%s) && ((unsigned long long)astra_a & "
				  "(sizeof(astra_pair) - 1)) == 0)\n", ir->cols);
		astra_buf_addf(b, "\t\t\t\tastra_p_%s = *(const astra_pair *)astra_a;\n\t\t\telse {\n", names[j]);
		astra_buf_addf(b, "\t\t\t\tastra_p_%s.e[0] = astra_a[0];\n", names[j]);
		astra_buf_addf(b, "\t\t\t\tastra_p_%s.e[1] = astra_c + 1 < (long long)(%s) ? astra_a[1] : astra_p_%s.e[0];\n"
				  "\t\t\t}\n\t\t}\n", names[j], ir->cols, names[j]);
	}
	tile_pair(w, ir, "\t\t", 1, b);
	astra_buf_adds(b, "\t}\n\t__syncthreads();\n#pragma unroll\n"
			  "\tfor (int astra_k = 0; astra_k < 64; astra_k += 8) {\n"
			  "\t\tconst long long astra_r = astra_r0 + 2 * threadIdx.x;\n"
			  "\t\tconst long long astra_c = astra_c0 + astra_k + threadIdx.y;\n");
	astra_buf_addf(b, "\t\tif (astra_r >= (long long)(%s) || astra_c >= (long long)(%s))\n\t\t\tcontinue;\n",
		       ir->rows, ir->cols);
	astra_buf_addf(b, "\t\t%s *astra_a = &%s[", elem, s->buf);
	emit(w, s->index, b);
	astra_buf_adds(b, "];\n\t\tastra_pair astra_o;\n"
			  "\t\tastra_o.e[0] = astra_tile[2 * threadIdx.x][astra_k + threadIdx.y];\n"
			  "\t\tastra_o.e[1] = astra_tile[2 * threadIdx.x + 1][astra_k + threadIdx.y];\n");
	astra_buf_addf(b, "\t\tif (astra_r + 1 < (long long)(%s) && ((unsigned long long)astra_a & (sizeof(astra_pair) - 1)) "
			  "== 0)\n\t\t\t*(astra_pair *)astra_a = astra_o;\n", ir->rows);
	astra_buf_adds(b, "\t\telse {\n\t\t\tastra_a[0] = astra_o.e[0];\n");
	astra_buf_addf(b, "\t\t\tif (astra_r + 1 < (long long)(%s))\n\t\t\t\tastra_a[1] = astra_o.e[1];\n\t\t}\n\t}\n}\n",
		       ir->rows);
}

void astra_ir_transpose_launch(const struct astra_ir *ir, int wide, struct astra_buf *grid, struct astra_buf *block)
{
	int t = wide ? 64 : 32;
	astra_buf_addf(grid, "dim3(((%s) + %d) / %d, ((%s) + %d) / %d)", ir->cols, t - 1, t, ir->rows, t - 1, t);
	astra_buf_adds(block, "dim3(32, 8)");
}
