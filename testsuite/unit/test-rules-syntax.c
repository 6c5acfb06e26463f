/*
 * Unit tests for the rules' C++ reader (rules/syntax.c) and the facts built
 * on it (rules/facts.c): tokens, statements, expressions, declarations,
 * edits, thread-index and type classification.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "front/extract.h"
#include "rules/facts.h"
#include "rules/rule.h"
#include "rules/syntax.h"
#include "testsuite/unit/unit.h"

static const char src[] =
	"#pragma astra shapes(n=100, rows=4)\n"
	"#pragma astra buffers(out[n], x[n])\n"
	"#pragma astra outputs(out)\n"
	"#pragma astra launch(grid=(n + 255) / 256, block=256)\n"
	"#pragma astra types(T=float)\n"
	"template <typename T>\n"
	"__global__ void __launch_bounds__(256) k(T *out, const T *x, int n, int rows)\n"
	"{\n"
	"	const int tid = threadIdx.x;\n"
	"	int g = blockIdx.x * blockDim.x + tid, half = n / 2; /* half is a type name too */\n"
	"	int lane = threadIdx.x & 31;\n"
	"	const T *xr = x + (size_t)blockIdx.x * n;\n"
	"	float f = static_cast<float>(x[0]) * 2.0f;\n"
	"	double d = 1.0 / f;\n"
	"#pragma unroll\n"
	"	for (int i = tid; i < n; i += blockDim.x) {\n"
	"		if (i > 3 && i < n - 1)\n"
	"			out[i] = (T)(xr[i] * f);\n"
	"		else\n"
	"			out[i] = x[i] > 0 ? x[i] : -x[i];\n"
	"	}\n"
	"	do { g++; } while (g < half);\n"
	"	out[0] = max<float>(out[0], 1.0f) + (float)d + (float)lane + (float)rows;\n"
	"}\n";

static int count(struct astra_stmt *s, void *data)
{
	int *n = data;
	n[s->kind]++;
	return 0;
}

int main(void)
{
	struct astra_tu tu;
	struct astra_rk rk;
	struct astra_facts f;
	struct astra_syn *syn, lex;
	struct astra_expr *e;
	struct astra_decl *d = NULL;
	struct astra_syn_edits ed = { NULL, 0, 0 };
	struct astra_buf b = ASTRA_BUF_INIT;
	const struct astra_local *l;
	int kinds[STMT_OTHER + 1];
	char *t, *off = NULL;
	size_t nd;

	/* lexer */
	CHECK(astra_syn_lex(&lex, "a>>=b; x = 1.5e-3f + .5 + 0x1Fu; s = \"a\\\"b\"; // c\n/* d */ p->q", 62) == 0);
	CHECK(astra_syn_is(&lex, 1, ">>="));
	CHECK(astra_syn_is(&lex, 6, "1.5e-3f"));
	CHECK(astra_syn_is(&lex, 8, ".5"));
	CHECK(astra_syn_is(&lex, 10, "0x1Fu"));
	CHECK(lex.toks[14].kind == SYN_STRING);
	CHECK(astra_syn_is(&lex, lex.nr_toks - 2, "->"));
	astra_syn_release(&lex);

	memset(&tu, 0, sizeof(tu));
	if (astra_extract_text(&tu, "k.cu", src, strlen(src), NULL) < 0 || tu.nr_kernels != 1)
		return 99;
	astra_rk_init(&rk, &tu.kernels[0], 90);
	CHECK(astra_facts_build(&f, &rk) == 0);
	syn = &rk.syn;
	CHECK(astra_syn_is(syn, syn->name_tok, "k"));
	memset(kinds, 0, sizeof(kinds));
	astra_syn_walk(syn->body, count, kinds);
	CHECK_INT(kinds[STMT_DECL], 6);
	CHECK_INT(kinds[STMT_FOR], 1);
	CHECK_INT(kinds[STMT_IF], 1);
	CHECK_INT(kinds[STMT_DO], 1);
	CHECK_INT(kinds[STMT_PP], 1);

	/* declarations: two declarators; `half` is a variable here */
	{
		struct astra_stmt *s = syn->body->kids[1];
		nd = astra_syn_decls(syn, s->a0, s->a1, &d);
		CHECK_INT(nd, 2);
		t = astra_syn_tokstr(syn, d[1].name);
		CHECK_STR(t, "half");
		free(t);
		t = astra_syn_text(syn, d[0].init0, d[0].init1);
		CHECK_STR(t, "blockIdx.x * blockDim.x + tid");
		free(t);
		free(d);
	}
	/* thread-index classification through set-once locals */
	l = astra_facts_local(&f, "g", 1);
	CHECK(l && l->assigned); /* g++ later */
	l = astra_facts_local(&f, "tid", 3);
	CHECK(l && !l->assigned);
	CHECK(astra_facts_tix(&f, astra_syn_expr(syn, l->d.init0, l->d.init1)) == TIX_TID);
	l = astra_facts_local(&f, "lane", 4);
	CHECK(astra_facts_tix(&f, astra_syn_expr(syn, l->d.init0, l->d.init1)) == TIX_LANE);
	l = astra_facts_local(&f, "g", 1);
	CHECK(astra_facts_tix(&f, astra_syn_expr(syn, l->d.init0, l->d.init1)) == TIX_GTID);
	/* a local pointer into a parameter */
	CHECK(astra_facts_pointer(&f, "xr", 2, &off) == &tu.kernels[0].params[1]);
	CHECK_STR(off, "(size_t)blockIdx.x * n");
	free(off);
	/* types */
	l = astra_facts_local(&f, "f", 1);
	e = astra_syn_expr(syn, l->d.init0, l->d.init1);
	CHECK(e && e->kind == EX_BINARY);
	CHECK(e->a->kind == EX_CAST);
	CHECK(astra_facts_type(&f, e) == TY_FLOAT);
	l = astra_facts_local(&f, "d", 1);
	CHECK(astra_facts_type(&f, astra_syn_expr(syn, l->d.init0, l->d.init1)) == TY_DOUBLE);
	/* expressions: precedence, conditional, template call, casts */
	{
		struct astra_stmt *last = syn->body->kids[syn->body->nr_kids - 1];
		e = astra_syn_expr(syn, last->a0, last->a1);
		CHECK(e && e->kind == EX_ASSIGN);
		CHECK(e->b->kind == EX_BINARY && astra_syn_is(syn, e->b->op, "+"));
	}
	CHECK(astra_syn_expr(syn, 0, 0) == NULL);

	/* edits */
	astra_syn_edit(&ed, 0, 1, "X");
	astra_syn_edit(&ed, 3, 3, "++");
	CHECK(astra_syn_apply("abcdef", 0, 6, &ed, &b) == 0);
	CHECK_STR(b.buf, "Xbc++def");
	astra_syn_edit(&ed, 2, 4, "!");
	astra_buf_reset(&b);
	CHECK(astra_syn_apply("abcdef", 0, 6, &ed, &b) < 0); /* overlap */
	astra_syn_edits_release(&ed);
	astra_buf_release(&b);

	/* pragma shapes evaluate for heuristics */
	CHECK_INT(astra_rk_max_over_shapes(&rk, "n * rows + 1"), 401);
	CHECK_INT(astra_rk_max_over_shapes(&rk, "n * unknown"), -1);
	CHECK_INT(astra_rk_block_literal(&rk), 256);
	CHECK(astra_rk_params_only(&rk, "(n + 255) / 256"));
	CHECK(!astra_rk_params_only(&rk, "(n + BLOCK) / BLOCK"));
	CHECK(!astra_rk_params_only(&rk, "x[0]"));

	astra_facts_release(&f);
	astra_rk_release(&rk);
	astra_tu_release(&tu);
	return unit_done();
}
