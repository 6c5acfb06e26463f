/*
 * r-fastmath.c - rule "fastmath": single-precision math through the fast
 * hardware paths.
 *
 *   expf(x), exp(x) on float   -> __expf(x)     (also log, sin, cos, tan, pow, log2, log10)
 *   1.0f / sqrtf(x)            -> rsqrtf(x)
 *   a / sqrtf(x)               -> a * rsqrtf(x)
 *   1.0f / x                   -> __frcp_rn(x)  (IEEE-rounded, same result, no division)
 *   a / b (float, b not a literal) -> __fdividef(a, b)
 *   tanhf(x)                   -> tanh.approx.f32 (when the target is sm_75 or later)
 *
 * The results differ from the IEEE functions in the last bits (a few ulp;
 * __fdividef returns 0 for |b| > 2^126), which the verifier's tolerance
 * judges.  Only expressions whose type the rules can see is float are
 * touched: double math and integer division are left alone.
 */
#include "autoconfig.h"

#include <string.h>

#include "astra-cc/util.h"
#include "rules/facts.h"
#include "rules/helpers.h"
#include "rules/rule.h"

struct fm {
	struct astra_facts *f;
	int cc;
	int tanh_used;
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
	(void)arg;

	if (astra_facts_build(&f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	fm.f = &f;
	fm.cc = rk->cc;
	fm.tanh_used = 0;
	changed = astra_facts_rewrite(&f, rk->syn.body, rw, &fm, &edits, &unparsed);
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
