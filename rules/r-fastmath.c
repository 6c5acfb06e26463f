/*
 * r-fastmath.c - rule "fastmath": single-precision math through the fast
 * hardware paths.
 *
 *   expf(x), exp(x) on float   -> __expf(x)     (also log, sin, cos, tan, pow, log2, log10)
 *   1.0f / sqrtf(x)            -> rsqrtf(x)
 *   a / sqrtf(x)               -> a * rsqrtf(x)
 *   1.0f / x                   -> __frcp_rn(x)  (IEEE-rounded, same result, no division)
 *   a / b (float, b not a literal) -> __fdividef(a, b)
 *   a / s (s a float local set once, never changed)
 *                              -> a * astra_rcp_s, with
 *                                 const float astra_rcp_s = __frcp_rn(s);
 *                                 right after s's declaration: one
 *                                 reciprocal per thread instead of one per
 *                                 division (a row's elements divided by its
 *                                 scale or sum), within 1.5 ulp of a / s
 *   tanhf(x)                   -> tanh.approx.f32 (when the target is sm_75 or later)
 *
 * The results differ from the IEEE functions in the last bits (a few ulp;
 * __fdividef returns 0 for |b| > 2^126), which the verifier's tolerance
 * judges.  Only expressions whose type the rules can see is float are
 * touched: double math and integer division are left alone.
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "front/lex.h"
#include "rules/facts.h"
#include "rules/helpers.h"
#include "rules/rule.h"

struct fm {
	struct astra_facts *f;
	int cc;
	int tanh_used;
	const struct astra_local *rcp[16]; /* divisors given a reciprocal */
	size_t nr_rcp;
};

static const struct {
	const char *from, *to;
	int overloaded; /* the name is the generic overload: needs a float argument */
} calls[] = {
	{ "expf", "__expf", 0 }, { "logf", "__logf", 0 }, { "sinf", "__sinf", 0 },
	{ "cosf", "__cosf", 0 }, { "tanf", "__tanf", 0 }, { "powf", "__powf", 0 },
	{ "log2f", "__log2f", 0 }, { "log10f", "__log10f", 0 }, { "exp10f", "__exp10f", 0 },
	{ "exp", "__expf", 1 }, { "log", "__logf", 1 }, { "sin", "__sinf", 1 }, { "cos", "__cosf", 1 },
	{ "pow", "__powf", 1 }, { "log2", "__log2f", 1 }, { "log10", "__log10f", 1 },
};

static int is_one(const struct astra_syn *syn, const struct astra_expr *e)
{
	static const char *const ones[] = { "1", "1.0f", "1.f", "1.0F", "1.F", "1.0", "1.", NULL };
	const char *const *o;
	while (e->kind == EX_PAREN)
		e = e->a;
	if (e->kind != EX_LIT)
		return 0;
	for (o = ones; *o; o++)
		if (astra_syn_is(syn, e->t0, *o))
			return 1;
	return 0;
}

static int is_float(struct fm *fm, const struct astra_expr *e)
{
	return astra_facts_type(fm->f, e) == TY_FLOAT;
}

/* sqrtf(x) or sqrt(x) on float: the argument, else NULL. */
static const struct astra_expr *sqrt_arg(struct fm *fm, const struct astra_expr *e)
{
	const struct astra_syn *syn = fm->f->syn;
	while (e->kind == EX_PAREN)
		e = e->a;
	if (e->kind != EX_CALL || e->a->kind != EX_IDENT || e->nr_args != 1)
		return NULL;
	if (astra_syn_is(syn, e->a->t0, "sqrtf") ||
	    (astra_syn_is(syn, e->a->t0, "sqrt") && is_float(fm, e->args[0])))
		return e->args[0];
	return NULL;
}

/*
 * Where a statement ending at `at` ends its line: its newline when only
 * blanks and comments that close on that line follow (front/lex.c tells),
 * else at.
 */
static size_t after_line(const char *t, size_t len, size_t at)
{
	struct astra_lexed lx;
	size_t eol = at, i;
	int only_comments;

	while (eol < len && t[eol] != '\n')
		eol++;
	if (eol >= len)
		return at;
	only_comments = astra_lex(t + at, eol - at, ASTRA_LEX_COMMENTS, &lx) == 0;
	for (i = 0; only_comments && i < lx.nr; i++)
		if (lx.toks[i].kind != ASTRA_LEX_COMMENT)
			only_comments = 0;
	astra_lexed_release(&lx);
	return only_comments ? eol : at;
}

/*
 * The divisor d is a float local declared once (a plain declaration, not
 * in a for-init) and never changed: the local, else NULL.  Also NULL when
 * the name for its reciprocal is taken, or there is no room left.
 */
static const struct astra_local *rcp_divisor(struct fm *fm, const struct astra_expr *d)
{
	const struct astra_syn *syn = fm->f->syn;
	const struct astra_local *l;
	char *rname;
	int taken;
	while (d->kind == EX_PAREN)
		d = d->a;
	if (d->kind != EX_IDENT || d->t1 != d->t0 + 1 || fm->nr_rcp == ARRAY_SIZE(fm->rcp))
		return NULL;
	l = astra_facts_local_tok(fm->f, d->t0);
	if (!l || !l->stmt || l->stmt->kind != STMT_DECL || l->is_shared || l->is_pointer ||
	    !astra_facts_is_const_local(fm->f, l->name, strlen(l->name)) || l->d.ty1 != l->d.ty0 + 1 ||
	    !astra_syn_is(syn, l->d.ty0, "float"))
		return NULL;
	rname = xasprintf("astra_rcp_%s", l->name);
	taken = astra_facts_local(fm->f, rname, strlen(rname)) != NULL;
	free(rname);
	return taken ? NULL : l;
}

static char *rw(struct astra_syn *syn, struct astra_expr *e, char **kids, size_t n, void *data)
{
	struct fm *fm = data;
	size_t i;

	if (e->kind == EX_CALL && e->a->kind == EX_IDENT && e->a->t1 == e->a->t0 + 1 && e->nr_args >= 1) {
		for (i = 0; i < ARRAY_SIZE(calls); i++) {
			size_t k;
			struct astra_buf b = ASTRA_BUF_INIT;
			if (!astra_syn_is(syn, e->a->t0, calls[i].from))
				continue;
			if (calls[i].overloaded)
				for (k = 0; k < e->nr_args; k++)
					if (!is_float(fm, e->args[k]))
						return NULL;
			astra_buf_addf(&b, "%s(", calls[i].to);
			for (k = 1; k < n; k++)
				astra_buf_addf(&b, "%s%s", k > 1 ? ", " : "", kids[k]);
			astra_buf_adds(&b, ")");
			return astra_buf_detach(&b, NULL);
		}
		if (fm->cc >= 75 && e->nr_args == 1 &&
		    (astra_syn_is(syn, e->a->t0, "tanhf") ||
		     (astra_syn_is(syn, e->a->t0, "tanh") && is_float(fm, e->args[0])))) {
			fm->tanh_used = 1;
			return xasprintf("%s(%s)", ASTRA_HELPER("tanh"), kids[1]);
		}
		return NULL;
	}
	if (e->kind == EX_BINARY && astra_syn_is(syn, e->op, "/") && n == 2) {
		const struct astra_expr *root = sqrt_arg(fm, e->b);
		if (!is_float(fm, e->a) && !is_one(syn, e->a))
			return NULL;
		if (root) {
			/* kids[1] is the rewritten divisor "sqrtf(x)": rewrite its argument text */
			char *arg = astra_expr_rewrite(syn, (struct astra_expr *)root, rw, data), *r;
			if (is_one(syn, e->a))
				r = xasprintf("rsqrtf(%s)", arg);
			else
				r = xasprintf("%s * rsqrtf(%s)", kids[0], arg);
			free(arg);
			return r;
		}
		if (!is_float(fm, e->b))
			return NULL;
		if (is_one(syn, e->a))
			return xasprintf("__frcp_rn(%s)", kids[1]);
		{
			const struct astra_expr *d = e->b;
			while (d->kind == EX_PAREN)
				d = d->a;
			if (d->kind == EX_LIT)
				return NULL; /* division by a constant: leave it to the compiler */
			if (!is_float(fm, e->a))
				return NULL;
		}
		{
			const struct astra_local *l = rcp_divisor(fm, e->b);
			if (l) {
				size_t k;
				for (k = 0; k < fm->nr_rcp && fm->rcp[k] != l; k++)
					;
				if (k == fm->nr_rcp)
					fm->rcp[fm->nr_rcp++] = l;
				return xasprintf("%s * astra_rcp_%s", kids[0], l->name);
			}
		}
		return xasprintf("__fdividef(%s, %s)", kids[0], kids[1]);
	}
	return NULL;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_facts f;
	struct astra_syn_edits edits = { NULL, 0, 0 };
	struct fm fm;
	int changed, unparsed;
	size_t i;
	(void)arg;

	if (astra_facts_build(&f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	fm.f = &f;
	fm.cc = rk->cc;
	fm.tanh_used = 0;
	fm.nr_rcp = 0;
	changed = astra_facts_rewrite(&f, rk->syn.body, rw, &fm, &edits, &unparsed);
	for (i = 0; i < fm.nr_rcp; i++) {
		const struct astra_local *l = fm.rcp[i];
		size_t at = after_line(f.syn->text, f.syn->len, astra_syn_end(f.syn, l->stmt->t1 - 1));
		char *ind = astra_rk_line_indent(rk, astra_syn_off(f.syn, l->stmt->t0));
		astra_syn_edit_owned(&edits, at, at,
				      xasprintf("\n%sconst float astra_rcp_%s = __frcp_rn(%s);", ind, l->name, l->name));
		free(ind);
	}
	astra_facts_release(&f);
	if (!changed) {
		astra_syn_edits_release(&edits);
		astra_buf_adds(why, "no float expf/logf/sinf/cosf/powf/tanhf call, 1/sqrtf or float division to replace");
		return 0;
	}
	if (astra_rk_edit(rk, &edits) < 0) {
		astra_syn_edits_release(&edits);
		astra_buf_adds(why, "overlapping rewrites");
		return -1;
	}
	astra_syn_edits_release(&edits);
	if (fm.tanh_used)
		rk->helpers |= HELPER_TANH;
	return 1;
}

const struct astra_rule astra_rule_fastmath = {
	.name = "fastmath",
	.summary = "fast float intrinsics: __expf, __logf, rsqrtf, __fdividef, __frcp_rn, tanh.approx",
	.stage = 60,
	.apply = apply,
};
