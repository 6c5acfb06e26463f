/*
 * test-lift.c - lifting kernels to what they compute (ir/, doc/lift.md).
 *
 * The kernels of testsuite/cases/lift/0001-twins are named GROUP__WAY:
 * each group is one computation written several ways (a thread per
 * element or row, a grid-stride loop, a block per row with a block-stride
 * loop or with one element per thread, a warp per row, 2-D blocks; sums
 * and maxima through a thread's loop, a shared-memory tree, warp-shuffle
 * loops, a block-reduce helper with per-warp partials, atomicAdd).  Every
 * kernel of a group must lift to the same one-line form, and that form
 * must be the one written here (a matrix product's loop nest too: its
 * running sum over k in the output or in a register).  The kernels of 0002-not-lifted must not
 * lift, with the reason and the line given here.  Extraction needs
 * libclang: without it the file checks are skipped.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "front/extract.h"
#include "ir/ir.h"
#include "ir/print.h"
#include "lib/util.h"
#include "unit.h"

static const struct {
	const char *group;
	const char *form;
	int members;
} groups[] = {
	{"rms", "out[r,c] = rsqrtf(eps + sum_c(x[r,c]^2) / cols) * x[r,c] * w[c]  (rows=rows, cols=cols)", 5},
	{"rmsk", "out[r,c] = rsqrtf(eps + sum_c(x[r,c]^2) / K) * x[r,c] * g[c]  (rows=rows, cols=K)", 2},
	{"smk", "out[r,c] = expf(x[r,c] - max_c(x[r,c])) / sum_c(expf(x[r,c] - max_c(x[r,c])))  (rows=rows, cols=K)", 2},
	{"sm", "out[r,c] = expf(x[r,c] - max_c(x[r,c])) / sum_c(expf(x[r,c] - max_c(x[r,c])))  (rows=rows, cols=cols)", 3},
	{"dot", "out[0] += sum_i(x[i] * y[i])  (n=n)", 2},
	{"sum", "out[0] += sum_i(x[i])  (n=n)", 2},
	{"tr", "out[c,r] = in[r,c]  (rows=rows, cols=cols)", 3},
	{"axpy", "y[i] = a * x[i] + y[i]  (n=n)", 3},
	{"emb", "out[r,c] = table[ids[r],c]  (rows=tokens, cols=cols)", 2},
	{"gemm", "c[r,c] = sum_k(a[r,k] * alpha * b[k,c]; start beta * c[r,c])  (rows=ni, cols=nj, k=nk)", 3},
};

static const struct {
	const char *kernel;
	const char *why;             /* the reason, after "file:line: "; the lifted form where line is 0 */
	unsigned line;
} declines[] = {
	/* line 0: the kernel lifts, to this form (a data branch around one assignment is a select) */
	{"clamp_branch", "out[i] = (x[i] < lo ? lo : x[i]) > hi ? hi : x[i] < lo ? lo : x[i]  (n=n)", 0},
	{"while_loop", "a while loop is not modelled yet: `while (i < n) {`", 29},
	{"vec4", "a member access (`.x`: vector types, structures) is not modelled", 43},
	{"max_as_sum", "a max's parts are combined with sum", 61},
	{"half_warp", "a shuffle loop that does not cover a warp's 32 lanes: `for (int o = 8; o > 0; o /= 2)`", 78},
	{"exclusive_scan", "reads `acc` in the loop before it accumulates there (a scan)", 96},
	{"short_block", "one element per thread, but the block (256) is not the row length (cols)", 116},
	{"nest_scan", "a store inside the loop over k at one place that is not an accumulation `out[...] += ...`", 130},
	{"last_write", "a store inside the loop over c at one place that is not an accumulation `out[...] += ...`", 143},
};

static void check_poly(void)
{
	struct astra_ir_arena ar = {0};
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_ir_node *tid = astra_ir_node(&ar, IR_ATOM, "tid.x", 0);
	struct astra_ir_node *bid = astra_ir_node(&ar, IR_ATOM, "bid.x", 0);
	struct astra_ir_node *bdim = astra_ir_node(&ar, IR_ATOM, "bdim.x", 0);
	struct astra_ir_node *two = astra_ir_node(&ar, IR_NUM, "2", 0);
	/* threadIdx.x + blockDim.x * blockIdx.x and blockIdx.x * blockDim.x + threadIdx.x: one text */
	astra_ir_print_poly(astra_ir_node(&ar, IR_BIN, "+", 2, tid, astra_ir_node(&ar, IR_BIN, "*", 2, bdim, bid)), &b);
	CHECK_STR(b.buf, "bdim.x*bid.x + tid.x");
	astra_buf_reset(&b);
	astra_ir_print_poly(astra_ir_node(&ar, IR_BIN, "+", 2, astra_ir_node(&ar, IR_BIN, "*", 2, bid, bdim), tid), &b);
	CHECK_STR(b.buf, "bdim.x*bid.x + tid.x");
	astra_buf_reset(&b);
	/* (t + t) << 1 is 4*t; t - t is 0 */
	astra_ir_print_poly(astra_ir_node(&ar, IR_BIN, "<<", 2, astra_ir_node(&ar, IR_BIN, "+", 2, tid, tid),
					  astra_ir_node(&ar, IR_NUM, "1", 0)), &b);
	CHECK_STR(b.buf, "4*tid.x");
	astra_buf_reset(&b);
	astra_ir_print_poly(astra_ir_node(&ar, IR_BIN, "-", 2, tid, tid), &b);
	CHECK_STR(b.buf, "0");
	astra_buf_reset(&b);
	/* values: 2.0f prints as 2, a * a as a^2, + in a fixed order */
	astra_ir_print_expr(astra_ir_node(&ar, IR_BIN, "+", 2, astra_ir_node(&ar, IR_BIN, "*", 2, tid, tid),
					  astra_ir_node(&ar, IR_NUM, "2.0f", 0)), &b);
	CHECK_STR(b.buf, "2 + tid.x^2");
	astra_buf_reset(&b);
	astra_ir_print_expr(astra_ir_node(&ar, IR_BIN, "-", 2, two, astra_ir_node(&ar, IR_BIN, "-", 2, tid, bid)), &b);
	CHECK_STR(b.buf, "2 - (tid.x - bid.x)");
	astra_buf_release(&b);
	astra_ir_arena_release(&ar);
}

static int lift_file(const char *dir, const char *name, struct astra_vec *kernels, struct astra_vec *forms)
{
	struct astra_tu tu;
	char *path = xasprintf("%s/testsuite/cases/lift/%s", dir, name);
	size_t k;
	memset(&tu, 0, sizeof(tu));
	if (astra_extract_tu(&tu, path, NULL) < 0) {
		astra_tu_release(&tu);
		free(path);
		return -1;
	}
	for (k = 0; k < tu.nr_kernels; k++) {
		struct astra_ir ir;
		struct astra_buf out = ASTRA_BUF_INIT;
		if (astra_ir_lift(&tu.kernels[k], &ir, &out) == 0) {
			astra_buf_reset(&out);
			astra_ir_print(&ir, &out);
		} else {
			/* "why:" then the reason without the file name */
			const char *colon = strstr(out.buf, ".cu:");
			char *w = xasprintf("why:%s", colon ? colon + 4 : out.buf);
			astra_buf_reset(&out);
			astra_buf_adds(&out, w);
			free(w);
		}
		astra_vec_push(kernels, tu.kernels[k].name);
		astra_vec_push(forms, out.buf);
		astra_ir_release(&ir);
		astra_buf_release(&out);
	}
	astra_tu_release(&tu);
	free(path);
	return 0;
}

/*
 * astra_ir_lift keeps its last results (lift-memo.c): a second lift of a
 * kernel is a copy that outlives the first, and the same struct holding
 * another kernel is lifted again, not answered from the first.
 */
static void check_memo(const char *dir)
{
	struct astra_tu tu;
	struct astra_ir a, b, c;
	struct astra_buf fa = ASTRA_BUF_INIT, fb = ASTRA_BUF_INIT, fc = ASTRA_BUF_INIT, fl = ASTRA_BUF_INIT;
	struct astra_kernel first;
	char *path = xasprintf("%s/testsuite/cases/lift/0001-twins/elementwise.cu", dir);
	size_t last;
	memset(&tu, 0, sizeof(tu));
	if (astra_extract_tu(&tu, path, NULL) < 0 || tu.nr_kernels < 2) {
		astra_tu_release(&tu);
		free(path);
		return;
	}
	last = tu.nr_kernels - 1;
	CHECK_INT(astra_ir_lift(&tu.kernels[0], &a, &fa), 0);
	CHECK_INT(astra_ir_lift(&tu.kernels[0], &b, &fb), 0);
	astra_ir_print(&a, &fa);
	astra_ir_release(&a);      /* b must not share a's nodes */
	astra_ir_print(&b, &fb);
	CHECK_STR(fb.buf, fa.buf);
	CHECK_INT(astra_ir_lift(&tu.kernels[last], &c, &fl), 0);
	astra_ir_print(&c, &fl);
	astra_ir_release(&c);
	first = tu.kernels[0];
	tu.kernels[0] = tu.kernels[last];
	CHECK_INT(astra_ir_lift(&tu.kernels[0], &c, &fc), 0);
	astra_ir_print(&c, &fc);
	CHECK_STR(fc.buf, fl.buf);
	CHECK(strcmp(fc.buf, fa.buf) != 0);
	tu.kernels[0] = first;
	astra_ir_release(&b);
	astra_ir_release(&c);
	astra_buf_release(&fa);
	astra_buf_release(&fb);
	astra_buf_release(&fc);
	astra_buf_release(&fl);
	astra_tu_release(&tu);
	free(path);
}

int main(void)
{
	static const char *const twins[] = {"rmsnorm.cu", "rmsnorm-k.cu", "softmax.cu", "softmax-k.cu", "reduce.cu",
					    "transpose.cu", "elementwise.cu", "contract.cu"};
	struct astra_vec kernels = ASTRA_VEC_INIT, forms = ASTRA_VEC_INIT;
	const char *src = getenv("srcdir");
	size_t i, g;

	check_poly();
	if (!src)
		src = ".";
	for (i = 0; i < sizeof(twins) / sizeof(twins[0]); i++) {
		char *name = xasprintf("0001-twins/%s", twins[i]);
		if (lift_file(src, name, &kernels, &forms) < 0) {
			free(name);
			return unit_skip("cannot extract the kernels (no libclang?)");
		}
		free(name);
	}
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		size_t n = strlen(groups[g].group);
		int members = 0;
		for (i = 0; i < kernels.nr; i++) {
			if (strncmp(kernels.v[i], groups[g].group, n) || strncmp(kernels.v[i] + n, "__", 2))
				continue;
			members++;
			if (strcmp(forms.v[i], groups[g].form))
				fprintf(stderr, "kernel %s:\n", kernels.v[i]);
			CHECK_STR(forms.v[i], groups[g].form);
		}
		CHECK_INT(members, groups[g].members);
	}
	astra_vec_clear(&kernels);
	astra_vec_clear(&forms);
	if (lift_file(src, "0002-not-lifted/k.cu", &kernels, &forms) < 0)
		return unit_skip("cannot extract the kernels (no libclang?)");
	CHECK_INT(kernels.nr, sizeof(declines) / sizeof(declines[0]));
	for (g = 0; g < sizeof(declines) / sizeof(declines[0]); g++)
		for (i = 0; i < kernels.nr; i++)
			if (!strcmp(kernels.v[i], declines[g].kernel)) {
				char *want = declines[g].line ? xasprintf("why:%u: %s", declines[g].line, declines[g].why)
							       : xstrdup(declines[g].why);
				CHECK_STR(forms.v[i], want);
				free(want);
			}
	astra_vec_clear(&kernels);
	astra_vec_clear(&forms);
	check_memo(src);
	return unit_done();
}
