/*
 * facts.c - locals, thread indices, types and pointers of a kernel body
 * (see facts.h).
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"

#define NONE ((size_t)-1)

static int tok_eq(const struct astra_syn *syn, size_t t, const char *name, size_t len)
{
	return t < syn->nr_toks && syn->toks[t].len == len && !memcmp(syn->text + syn->toks[t].off, name, len);
}

static void add_decls(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1)
{
	struct astra_decl *d = NULL;
	size_t n = astra_syn_decls(f->syn, t0, t1, &d), i, j;
	for (i = 0; i < n; i++) {
		struct astra_local *l;
		char *name = astra_syn_tokstr(f->syn, d[i].name);
		for (j = 0; j < f->nr_locals; j++)
			if (!strcmp(f->locals[j].name, name)) {
				char *ta = astra_syn_text(f->syn, f->locals[j].d.ty0, f->locals[j].d.ty1);
				char *tb = astra_syn_text(f->syn, d[i].ty0, d[i].ty1);
				f->locals[j].nr_decls++;
				if (strcmp(ta, tb) || f->locals[j].d.is_array != d[i].is_array ||
				    (astra_syn_find(f->syn, d[i].ptr0, d[i].ptr1, "*") != NONE) != f->locals[j].is_pointer)
					f->locals[j].same_type = 0;
				free(ta);
				free(tb);
				break;
			}
		if (j < f->nr_locals) {
			free(name);
			continue;
		}
		ALLOC_GROW(f->locals, f->nr_locals + 1, f->alloc_locals);
		l = &f->locals[f->nr_locals++];
		memset(l, 0, sizeof(*l));
		l->name = name;
		l->stmt = s;
		l->d = d[i];
		l->nr_decls = 1;
		l->same_type = 1;
		l->is_shared = astra_syn_find(f->syn, d[i].ty0, d[i].ty1, "__shared__") != NONE;
		l->is_pointer = astra_syn_find(f->syn, d[i].ptr0, d[i].ptr1, "*") != NONE;
	}
	free(d);
}

static int collect(struct astra_stmt *s, void *data)
{
	struct astra_facts *f = data;
	if (s->kind == STMT_DECL)
		add_decls(f, s, s->a0, s->a1);
	else if (s->kind == STMT_FOR && astra_syn_looks_like_decl(f->syn, s->a0, s->a1))
		add_decls(f, s, s->a0, s->a1);
	return 0;
}

/* Is token t an operand's last token (so that a following & or * is binary)? */
static int ends_operand(const struct astra_syn *syn, size_t t)
{
	if (t == NONE || t >= syn->nr_toks)
		return 0;
	if (syn->toks[t].kind == SYN_IDENT)
		return !astra_syn_is(syn, t, "return");
	return syn->toks[t].kind == SYN_NUMBER || astra_syn_is(syn, t, ")") || astra_syn_is(syn, t, "]");
}

static int is_assign_tok(const struct astra_syn *syn, size_t t)
{
	static const char *const ops[] = { "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "++", "--", NULL };
	const char *const *o;
	for (o = ops; *o; o++)
		if (astra_syn_is(syn, t, *o))
			return 1;
	return 0;
}

/* Is the identifier at token t written there (not counting its own declaration)? */
static int written_at(const struct astra_facts *f, size_t t)
{
	const struct astra_syn *syn = f->syn;
	size_t i;
	if (t > 0 && (astra_syn_is(syn, t - 1, ".") || astra_syn_is(syn, t - 1, "->") || astra_syn_is(syn, t - 1, "::")))
		return 0;
	for (i = 0; i < f->nr_locals; i++)
		if (f->locals[i].d.name == t)
			return 0;
	if (is_assign_tok(syn, t + 1))
		return 1;
	if (t > 0 && (astra_syn_is(syn, t - 1, "++") || astra_syn_is(syn, t - 1, "--")))
		return 1;
	if (t > 0 && astra_syn_is(syn, t - 1, "&") && !ends_operand(syn, t - 2 == NONE ? NONE : t - 2))
		return 1;
	return 0;
}

int astra_facts_assigned_in(const struct astra_facts *f, const char *name, size_t len, size_t t0, size_t t1)
{
	size_t t;
	for (t = t0; t < t1 && t < f->syn->nr_toks; t++)
		if (f->syn->toks[t].kind == SYN_IDENT && tok_eq(f->syn, t, name, len) && written_at(f, t))
			return 1;
	return 0;
}

int astra_facts_build(struct astra_facts *f, struct astra_rk *rk)
{
	size_t i;
	memset(f, 0, sizeof(*f));
	if (astra_rk_parse(rk) < 0)
		return -1;
	f->rk = rk;
	f->syn = &rk->syn;
	astra_syn_walk(rk->syn.body, collect, f);
	for (i = 0; i < f->nr_locals; i++) {
		struct astra_local *l = &f->locals[i];
		l->assigned = astra_facts_assigned_in(f, l->name, strlen(l->name), rk->syn.body->t0, rk->syn.body->t1);
	}
	return 0;
}

void astra_facts_release(struct astra_facts *f)
{
	size_t i;
	for (i = 0; i < f->nr_locals; i++)
		free(f->locals[i].name);
	free(f->locals);
	memset(f, 0, sizeof(*f));
}

const struct astra_local *astra_facts_local(const struct astra_facts *f, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < f->nr_locals; i++)
		if (strlen(f->locals[i].name) == len && !memcmp(f->locals[i].name, name, len))
			return &f->locals[i];
	return NULL;
}

const struct astra_local *astra_facts_local_tok(const struct astra_facts *f, size_t t)
{
	if (t >= f->syn->nr_toks || f->syn->toks[t].kind != SYN_IDENT)
		return NULL;
	return astra_facts_local(f, f->syn->text + f->syn->toks[t].off, f->syn->toks[t].len);
}

int astra_facts_is_const_local(const struct astra_facts *f, const char *name, size_t len)
{
	const struct astra_local *l = astra_facts_local(f, name, len);
	return l && l->nr_decls == 1 && !l->assigned && l->d.init1 > l->d.init0 && !l->d.is_array;
}

/* ------------------------------------------------------------ constants */

static int const_depth;

int astra_facts_const_int(const struct astra_facts *f, const struct astra_expr *e, long long *v)
{
	const struct astra_syn *syn = f->syn;
	long long a, b;
	int r = -1;
	if (!e || const_depth > 16)
		return -1;
	const_depth++;
	switch (e->kind) {
	case EX_LIT: {
		char *s = astra_syn_tokstr(syn, e->t0), *end;
		if (syn->toks[e->t0].kind == SYN_NUMBER && !strpbrk(s, ".eEpP") ) {
			*v = strtoll(s, &end, 0);
			while (*end && strchr("uUlL", *end))
				end++;
			r = *end ? -1 : 0;
		} else if (syn->toks[e->t0].kind == SYN_NUMBER && (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))) {
			*v = strtoll(s, &end, 16);
			while (*end && strchr("uUlL", *end))
				end++;
			r = *end ? -1 : 0;
		}
		free(s);
		break;
	}
	case EX_PAREN:
		r = astra_facts_const_int(f, e->a, v);
		break;
	case EX_CAST: {
		char *ty = astra_syn_text(syn, e->ty0, e->ty1);
		if (astra_facts_type_of_text(f, ty) == TY_INT)
			r = astra_facts_const_int(f, e->a, v);
		free(ty);
		break;
	}
	case EX_UNARY:
		if (astra_syn_is(syn, e->op, "-") && astra_facts_const_int(f, e->a, &a) == 0) {
			*v = -a;
			r = 0;
		}
		break;
	case EX_IDENT: {
		const struct astra_local *l = astra_facts_local_tok(f, e->t0);
		if (e->t1 == e->t0 + 1 && l && l->nr_decls == 1 && !l->assigned && l->d.init1 > l->d.init0 &&
		    !l->d.is_array && !l->is_pointer)
			r = astra_facts_const_int(f, astra_syn_expr(f->syn, l->d.init0, l->d.init1), v);
		break;
	}
	case EX_BINARY:
		if (astra_facts_const_int(f, e->a, &a) < 0 || astra_facts_const_int(f, e->b, &b) < 0)
			break;
		r = 0;
		if (astra_syn_is(syn, e->op, "+"))
			*v = a + b;
		else if (astra_syn_is(syn, e->op, "-"))
			*v = a - b;
		else if (astra_syn_is(syn, e->op, "*"))
			*v = a * b;
		else if (astra_syn_is(syn, e->op, "/") && b)
			*v = a / b;
		else if (astra_syn_is(syn, e->op, "%") && b)
			*v = a % b;
		else if (astra_syn_is(syn, e->op, "<<") && b >= 0 && b < 62)
			*v = a << b;
		else if (astra_syn_is(syn, e->op, ">>") && b >= 0 && b < 62)
			*v = a >> b;
		else
			r = -1;
		break;
	default:
		break;
	}
	const_depth--;
	return r;
}

/* ------------------------------------------------------------ thread index */

enum { TIX_BOFF = 100 }; /* blockIdx.x * blockDim.x, internal */

static int tix_depth;
static const char *tix_dim = "x"; /* the dimension being classified */

static int tix_of(const struct astra_facts *f, const struct astra_expr *e);

static int tix_ident(const struct astra_facts *f, size_t t)
{
	const struct astra_syn *syn = f->syn;
	const struct astra_local *l;
	struct astra_expr *init;
	int r;
	if (astra_syn_is(syn, t, "warpSize"))
		return TIX_WARP;
	l = astra_facts_local_tok(f, t);
	if (!l || l->nr_decls != 1 || l->assigned || l->d.init1 <= l->d.init0 || tix_depth > 8)
		return TIX_NONE;
	init = astra_syn_expr(f->syn, l->d.init0, l->d.init1);
	if (!init)
		return TIX_NONE;
	tix_depth++;
	r = tix_of(f, init);
	tix_depth--;
	return r;
}

static int tix_of(const struct astra_facts *f, const struct astra_expr *e)
{
	const struct astra_syn *syn = f->syn;
	int a, b;
	if (!e)
		return TIX_NONE;
	switch (e->kind) {
	case EX_PAREN:
	case EX_CAST:
		return tix_of(f, e->a);
	case EX_LIT:
		return astra_syn_is(syn, e->t0, "32") ? TIX_WARP : TIX_NONE;
	case EX_IDENT:
		return e->t1 == e->t0 + 1 ? tix_ident(f, e->t0) : TIX_NONE;
	case EX_MEMBER:
		if (!e->a || e->a->kind != EX_IDENT || !astra_syn_is(syn, e->op + 1, tix_dim))
			return TIX_NONE;
		if (astra_syn_is(syn, e->a->t0, "threadIdx"))
			return TIX_TID;
		if (astra_syn_is(syn, e->a->t0, "blockIdx"))
			return TIX_BID;
		if (astra_syn_is(syn, e->a->t0, "blockDim"))
			return TIX_BDIM;
		if (astra_syn_is(syn, e->a->t0, "gridDim"))
			return TIX_GDIM;
		return TIX_NONE;
	case EX_BINARY:
		a = tix_of(f, e->a);
		b = tix_of(f, e->b);
		if (astra_syn_is(syn, e->op, "*")) {
			if ((a == TIX_BID && b == TIX_BDIM) || (a == TIX_BDIM && b == TIX_BID))
				return TIX_BOFF;
			if ((a == TIX_BDIM && b == TIX_GDIM) || (a == TIX_GDIM && b == TIX_BDIM))
				return TIX_GSTRIDE;
		}
		if (astra_syn_is(syn, e->op, "+") && ((a == TIX_BOFF && b == TIX_TID) || (a == TIX_TID && b == TIX_BOFF)))
			return TIX_GTID;
		if (astra_syn_is(syn, e->op, "%") && a == TIX_TID && b == TIX_WARP)
			return TIX_LANE;
		if (astra_syn_is(syn, e->op, "&") && a == TIX_TID && e->b->kind == EX_LIT && astra_syn_is(syn, e->b->t0, "31"))
			return TIX_LANE;
		if (a == TIX_GTID && ((astra_syn_is(syn, e->op, ">>") && e->b->kind == EX_LIT && astra_syn_is(syn, e->b->t0, "5")) ||
				      (astra_syn_is(syn, e->op, "/") && b == TIX_WARP)))
			return TIX_GWARP;
		if (a == TIX_TID && ((astra_syn_is(syn, e->op, ">>") && e->b->kind == EX_LIT && astra_syn_is(syn, e->b->t0, "5")) ||
				     (astra_syn_is(syn, e->op, "/") && b == TIX_WARP)))
			return TIX_WID;
		return TIX_NONE;
	default:
		return TIX_NONE;
	}
}

enum astra_tix astra_facts_tix(const struct astra_facts *f, const struct astra_expr *e)
{
	int r = tix_of(f, e);
	return r == TIX_BOFF ? TIX_NONE : (enum astra_tix)r;
}

enum astra_tix astra_facts_tix_y(const struct astra_facts *f, const struct astra_expr *e)
{
	int r;
	tix_dim = "y";
	r = tix_of(f, e);
	tix_dim = "x";
	return r == TIX_BOFF || r == TIX_LANE || r == TIX_GWARP ? TIX_NONE : (enum astra_tix)r;
}

int astra_facts_mentions_grid(const struct astra_facts *f, size_t t0, size_t t1, int yz_only)
{
	static const char *const names[] = { "threadIdx", "blockIdx", "blockDim", "gridDim" };
	size_t t, k;
	for (t = t0; t < t1 && t < f->syn->nr_toks; t++)
		for (k = 0; k < ARRAY_SIZE(names); k++)
			if (astra_syn_is(f->syn, t, names[k])) {
				if (!yz_only)
					return 1;
				if (astra_syn_is(f->syn, t + 1, ".") &&
				    (astra_syn_is(f->syn, t + 2, "y") || astra_syn_is(f->syn, t + 2, "z")))
					return 1;
				if (!astra_syn_is(f->syn, t + 1, "."))
					return 1; /* dim3 used whole */
			}
	return 0;
}

/* ------------------------------------------------------------------ types */

static enum astra_type bare_type_kind(const char *t)
{
	static const struct {
		const char *name;
		enum astra_type ty;
	} map[] = {
		{ "float", TY_FLOAT }, { "double", TY_DOUBLE }, { "int", TY_INT }, { "unsigned", TY_INT },
		{ "unsignedint", TY_INT }, { "long", TY_INT }, { "longlong", TY_INT }, { "unsignedlong", TY_INT },
		{ "unsignedlonglong", TY_INT }, { "int64_t", TY_INT }, { "uint64_t", TY_INT }, { "int32_t", TY_INT },
		{ "uint32_t", TY_INT }, { "size_t", TY_INT }, { "short", TY_INT }, { "char", TY_INT },
		{ "bool", TY_INT }, { "int8_t", TY_INT }, { "uint8_t", TY_INT }, { "half", TY_HALF },
		{ "__half", TY_HALF }, { "__nv_bfloat16", TY_BF16 }, { "nv_bfloat16", TY_BF16 },
	};
	size_t i;
	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(map[i].name, t))
			return map[i].ty;
	return TY_UNKNOWN;
}

enum astra_type astra_facts_type_of_text(const struct astra_facts *f, const char *type)
{
	char *t = astra_rk_resolve_type(f->rk, type);
	enum astra_type ty = TY_UNKNOWN;
	size_t i;
	if (strchr(t, '*') || strchr(t, '&')) {
		free(t);
		return TY_OTHER;
	}
	ty = bare_type_kind(t);
	if (ty == TY_UNKNOWN && astra_rk_is_tmpl_param(f->rk, t)) {
		int first = 1;
		for (i = 0; i < f->rk->k->pragma.nr_types; i++) {
			const char *v = astra_rk_type_arg(f->rk, i, t);
			char *bv;
			enum astra_type vt;
			if (!v)
				continue;
			bv = astra_rk_resolve_type(f->rk, v);
			vt = bare_type_kind(bv);
			free(bv);
			if (first)
				ty = vt;
			else if (ty != vt)
				ty = TY_UNKNOWN;
			first = 0;
		}
	}
	free(t);
	return ty;
}

static const char *const float_fns[] = {
	"expf", "logf", "sqrtf", "rsqrtf", "fmaxf", "fminf", "fabsf", "tanhf", "sinf", "cosf", "tanf",
	"powf", "exp2f", "log2f", "log10f", "erff", "erfcf", "__expf", "__logf", "__fdividef",
	"__frcp_rn", "__fsqrt_rn", "__powf", "__sinf", "__cosf", "__half2float", "__bfloat162float",
	"__low2float", "__high2float", "fmaf", "__fmaf_rn", "__fadd_rn", "__fmul_rn", "floorf",
	"ceilf", "roundf", "truncf", "rintf", "copysignf", "__saturatef", "__int2float_rn",
	"__uint2float_rn", "expm1f", "log1pf", "cbrtf", "rcbrtf", "__log2f", "__log10f", "__exp10f",
	"exp10f", "__tanf", NULL,
};
/* Functions whose float overload returns float (C++ overloads CUDA provides). */
static const char *const overloaded_fns[] = {
	"exp", "log", "sqrt", "rsqrt", "tanh", "sin", "cos", "tan", "pow", "exp2", "log2", "log10",
	"fabs", "abs", "fmax", "fmin", "max", "min", "erf", "floor", "ceil", "round", "fma", "copysign",
	NULL,
};

static int name_in(const struct astra_syn *syn, size_t t, const char *const *list)
{
	for (; *list; list++)
		if (astra_syn_is(syn, t, *list))
			return 1;
	return 0;
}

static int type_depth;

enum astra_type astra_facts_type(struct astra_facts *f, const struct astra_expr *e)
{
	const struct astra_syn *syn = f->syn;
	enum astra_type a, b, r = TY_UNKNOWN;
	if (!e || type_depth > 16)
		return TY_UNKNOWN;
	type_depth++;
	switch (e->kind) {
	case EX_LIT: {
		char *s = astra_syn_tokstr(syn, e->t0);
		size_t n = strlen(s);
		if (syn->toks[e->t0].kind != SYN_NUMBER)
			r = TY_OTHER;
		else if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
			r = TY_INT;
		else if (strpbrk(s, ".eE"))
			r = (s[n - 1] == 'f' || s[n - 1] == 'F') ? TY_FLOAT : TY_DOUBLE;
		else
			r = TY_INT;
		free(s);
		break;
	}
	case EX_IDENT: {
		const struct astra_local *l;
		const struct astra_param *p;
		if (e->t1 != e->t0 + 1)
			break;
		l = astra_facts_local_tok(f, e->t0);
		if (l && (l->nr_decls == 1 || l->same_type)) {
			char *ty = astra_syn_text(syn, l->d.ty0, l->d.ty1);
			if (l->is_pointer || l->d.is_array)
				r = TY_OTHER;
			else if (!strcmp(ty, "auto") || !strcmp(ty, "const auto"))
				r = l->d.init1 > l->d.init0 ? astra_facts_type(f, astra_syn_expr(f->syn, l->d.init0, l->d.init1)) : TY_UNKNOWN;
			else
				r = astra_facts_type_of_text(f, ty);
			free(ty);
			break;
		}
		p = astra_rk_param(f->rk, syn->text + syn->toks[e->t0].off, syn->toks[e->t0].len);
		if (p)
			r = p->is_pointer ? TY_OTHER : astra_facts_type_of_text(f, p->type);
		break;
	}
	case EX_PAREN:
		r = astra_facts_type(f, e->a);
		break;
	case EX_CAST: {
		char *ty = astra_syn_text(syn, e->ty0, e->ty1);
		r = astra_facts_type_of_text(f, ty);
		free(ty);
		break;
	}
	case EX_UNARY:
		if (astra_syn_is(syn, e->op, "-") || astra_syn_is(syn, e->op, "+"))
			r = astra_facts_type(f, e->a);
		else if (astra_syn_is(syn, e->op, "!"))
			r = TY_INT;
		break;
	case EX_CALL:
		if (e->a->kind != EX_IDENT)
			break;
		if (name_in(syn, e->a->t0, float_fns) || astra_syn_is(syn, e->a->t0, "float"))
			r = TY_FLOAT;
		else if (astra_syn_is(syn, e->a->t0, "double"))
			r = TY_DOUBLE;
		else if (name_in(syn, e->a->t0, overloaded_fns) && e->nr_args >= 1) {
			size_t i;
			r = astra_facts_type(f, e->args[0]);
			for (i = 1; i < e->nr_args; i++)
				if (astra_facts_type(f, e->args[i]) != r)
					r = TY_UNKNOWN;
			if (r != TY_FLOAT && r != TY_DOUBLE && r != TY_INT)
				r = TY_UNKNOWN;
		}
		break;
	case EX_BINARY:
		if (name_in(syn, e->op, (const char *const[]){ "<", ">", "<=", ">=", "==", "!=", "&&", "||", NULL })) {
			r = TY_INT;
			break;
		}
		a = astra_facts_type(f, e->a);
		b = astra_facts_type(f, e->b);
		if (a == TY_UNKNOWN || b == TY_UNKNOWN)
			r = TY_UNKNOWN;
		else if (a == TY_DOUBLE || b == TY_DOUBLE)
			r = TY_DOUBLE;
		else if (a == TY_FLOAT || b == TY_FLOAT)
			r = (a == TY_FLOAT || a == TY_INT) && (b == TY_FLOAT || b == TY_INT) ? TY_FLOAT : TY_UNKNOWN;
		else if (a == TY_INT && b == TY_INT)
			r = TY_INT;
		break;
	case EX_COND:
		a = astra_facts_type(f, e->b);
		b = astra_facts_type(f, e->c);
		r = a == b ? a : TY_UNKNOWN;
		break;
	case EX_ASSIGN:
		r = astra_facts_type(f, e->a);
		break;
	case EX_INDEX: {
		const struct astra_param *p;
		const struct astra_local *l;
		char *off = NULL;
		if (e->a->kind != EX_IDENT)
			break;
		p = astra_facts_pointer(f, syn->text + syn->toks[e->a->t0].off, syn->toks[e->a->t0].len, &off);
		free(off);
		l = astra_facts_local_tok(f, e->a->t0);
		if (l && l->d.is_array) {
			char *ty = astra_syn_text(syn, l->d.ty0, l->d.ty1);
			r = astra_facts_type_of_text(f, ty);
			free(ty);
		} else if (l && l->is_pointer) {
			char *ty = astra_syn_text(syn, l->d.ty0, l->d.ty1);
			r = astra_facts_type_of_text(f, ty);
			free(ty);
		} else if (p && p->elem_type) {
			r = astra_facts_type_of_text(f, p->elem_type);
		}
		break;
	}
	default:
		break;
	}
	type_depth--;
	return r;
}

/* --------------------------------------------------------------- pointers */

static int ptr_depth;

const struct astra_param *astra_facts_pointer(const struct astra_facts *f, const char *name, size_t len,
					      char **offset)
{
	const struct astra_param *p = astra_rk_param(f->rk, name, len);
	const struct astra_local *l;
	struct astra_expr *init, *e;
	const struct astra_param *r = NULL;
	char *inner = NULL, *off = NULL;
	*offset = NULL;
	if (p) {
		if (!p->is_pointer || astra_facts_local(f, name, len))
			return NULL;
		*offset = xstrdup("");
		return p;
	}
	l = astra_facts_local(f, name, len);
	if (!l || !l->is_pointer || l->nr_decls != 1 || l->assigned || l->d.init1 <= l->d.init0 || ptr_depth > 8)
		return NULL;
	init = astra_syn_expr(f->syn, l->d.init0, l->d.init1);
	if (!init)
		return NULL;
	e = init;
	/* through parentheses and casts to a pointer type (an inlined helper's return) */
	while (e->kind == EX_PAREN || (e->kind == EX_CAST && astra_syn_find(f->syn, e->ty0, e->ty1, "*") != (size_t)-1))
		e = e->a;
	ptr_depth++;
	if (e->kind == EX_IDENT && e->t1 == e->t0 + 1) {
		r = astra_facts_pointer(f, f->syn->text + f->syn->toks[e->t0].off, f->syn->toks[e->t0].len, &inner);
		off = xstrdup("");
	} else if (e->kind == EX_BINARY && astra_syn_is(f->syn, e->op, "+")) {
		struct astra_expr *base = e->a, *idx = e->b;
		while (base->kind == EX_PAREN)
			base = base->a;
		if (base->kind != EX_IDENT) {
			base = e->b;
			idx = e->a;
			while (base->kind == EX_PAREN)
				base = base->a;
		}
		while (idx->kind == EX_PAREN && idx->a)
			idx = idx->a;
		if (base->kind == EX_IDENT && base->t1 == base->t0 + 1) {
			r = astra_facts_pointer(f, f->syn->text + f->syn->toks[base->t0].off, f->syn->toks[base->t0].len, &inner);
			off = astra_syn_text(f->syn, idx->t0, idx->t1);
		}
	} else if (e->kind == EX_UNARY && astra_syn_is(f->syn, e->op, "&") && e->a->kind == EX_INDEX &&
		   e->a->a->kind == EX_IDENT && e->a->a->t1 == e->a->a->t0 + 1) {
		r = astra_facts_pointer(f, f->syn->text + f->syn->toks[e->a->a->t0].off,
					f->syn->toks[e->a->a->t0].len, &inner);
		off = astra_syn_text(f->syn, e->a->b->t0, e->a->b->t1);
	}
	ptr_depth--;
	if (r) {
		if (!*inner)
			*offset = off ? off : xstrdup("");
		else if (!off || !*off)
			*offset = xstrdup(inner);
		else
			*offset = xasprintf("(%s) + (%s)", inner, off);
		if (*offset != off)
			free(off);
		free(inner);
		return r;
	}
	free(inner);
	free(off);
	return NULL;
}

/* expr (text) with locals replaced by their initializers until only parameters remain. */
static char *to_params(const struct astra_facts *f, const char *expr, int depth)
{
	struct astra_syn syn;
	struct astra_syn_edits e = { NULL, 0, 0 };
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	if (depth > 8 || astra_syn_lex(&syn, expr, strlen(expr)) < 0)
		return NULL;
	for (i = 0; i < syn.nr_toks; i++) {
		const struct astra_local *l;
		if (syn.toks[i].kind != SYN_IDENT)
			continue;
		l = astra_facts_local(f, syn.text + syn.toks[i].off, syn.toks[i].len);
		if (l) {
			char *init, *sub;
			if (l->nr_decls != 1 || l->assigned || l->d.init1 <= l->d.init0 || l->is_pointer || l->d.is_array) {
				astra_syn_edits_release(&e);
				astra_syn_release(&syn);
				return NULL;
			}
			init = astra_syn_text(f->syn, l->d.init0, l->d.init1);
			sub = to_params(f, init, depth + 1);
			free(init);
			if (!sub) {
				astra_syn_edits_release(&e);
				astra_syn_release(&syn);
				return NULL;
			}
			astra_syn_edit_owned(&e, syn.toks[i].off, syn.toks[i].off + syn.toks[i].len, xasprintf("(%s)", sub));
			free(sub);
		}
	}
	astra_syn_apply(expr, 0, strlen(expr), &e, &b);
	astra_syn_edits_release(&e);
	astra_syn_release(&syn);
	return astra_buf_detach(&b, NULL);
}

char *astra_facts_to_params(const struct astra_facts *f, const char *expr)
{
	return to_params(f, expr, 0);
}

/* ------------------------------------------------------------------ parts */

struct parts {
	struct astra_facts *f;
	astra_part_fn fn;
	void *data;
	int ret;
};

static int one_part(struct parts *p, struct astra_stmt *s, size_t t0, size_t t1)
{
	if (t1 <= t0)
		return 0;
	p->ret = p->fn(p->f, s, t0, t1, astra_syn_expr(p->f->syn, t0, t1), p->data);
	return p->ret;
}

static int decl_parts(struct parts *p, struct astra_stmt *s, size_t t0, size_t t1)
{
	struct astra_decl *d = NULL;
	size_t n = astra_syn_decls(p->f->syn, t0, t1, &d), i;
	int r = 0;
	if (!n)
		return one_part(p, s, t0, t1);
	for (i = 0; i < n && !r; i++) {
		if (d[i].dim1 > d[i].dim0)
			r = one_part(p, s, d[i].dim0, d[i].dim1);
		if (!r && d[i].init1 > d[i].init0)
			r = one_part(p, s, d[i].init0, d[i].init1);
	}
	free(d);
	return r;
}

static int part_stmt(struct astra_stmt *s, void *data)
{
	struct parts *p = data;
	switch (s->kind) {
	case STMT_EXPR:
		return one_part(p, s, s->a0, s->a1);
	case STMT_DECL:
		return decl_parts(p, s, s->a0, s->a1);
	case STMT_IF:
	case STMT_WHILE:
	case STMT_SWITCH:
	case STMT_DO:
		return one_part(p, s, s->a0, s->a1);
	case STMT_FOR:
		if (astra_syn_looks_like_decl(p->f->syn, s->a0, s->a1)) {
			if (decl_parts(p, s, s->a0, s->a1))
				return p->ret;
		} else if (one_part(p, s, s->a0, s->a1)) {
			return p->ret;
		}
		if (one_part(p, s, s->b0, s->b1))
			return p->ret;
		return one_part(p, s, s->c0, s->c1);
	case STMT_RETURN:
		return one_part(p, s, s->a0 + 1, s->a1);
	default:
		return 0;
	}
}

int astra_facts_each_part(struct astra_facts *f, struct astra_stmt *s, astra_part_fn fn, void *data)
{
	struct parts p;
	p.f = f;
	p.fn = fn;
	p.data = data;
	p.ret = 0;
	astra_syn_walk(s, part_stmt, &p);
	return p.ret;
}

struct rw {
	astra_expr_rw_fn fn;
	void *data;
	struct astra_syn_edits *edits;
	int changed, unparsed;
};

static int rw_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e,
		   void *data)
{
	struct rw *rw = data;
	char *t, *orig;
	(void)s;
	if (!e) {
		rw->unparsed++;
		return 0;
	}
	t = astra_expr_rewrite(f->syn, e, rw->fn, rw->data);
	orig = astra_syn_text(f->syn, t0, t1);
	if (strcmp(t, orig)) {
		astra_syn_edit_owned(rw->edits, astra_syn_off(f->syn, t0), astra_syn_end(f->syn, t1 - 1), t);
		rw->changed++;
	} else {
		free(t);
	}
	free(orig);
	return 0;
}

int astra_facts_rewrite(struct astra_facts *f, struct astra_stmt *s, astra_expr_rw_fn fn, void *data,
			struct astra_syn_edits *edits, int *unparsed)
{
	struct rw rw;
	rw.fn = fn;
	rw.data = data;
	rw.edits = edits;
	rw.changed = rw.unparsed = 0;
	astra_facts_each_part(f, s, rw_part, &rw);
	if (unparsed)
		*unparsed = rw.unparsed;
	return rw.changed;
}
