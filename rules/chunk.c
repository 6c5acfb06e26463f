/*
 * chunk.c - per-thread chunks with vector loads and stores (see chunk.h).
 *
 * The analysis is deliberately narrow.  An index is classified as
 * INV (the same for every element of a chunk), UNIT (the loop index plus
 * an INV part) or VARY (anything else) by structural recursion with the
 * loop index as the only varying leaf; set-once locals are looked
 * through.  Only UNIT accesses through a pointer parameter (or a set-once
 * local pointer into one) are vectorized.  A pointer that is written must
 * be accessed only through vectorized accesses in the loop, so that no
 * scalar access can see a stale register copy.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "rules/chunk.h"
#include "rules/facts.h"
#include "rules/helpers.h"

#define NONE ((size_t)-1)
#define MAX_GROUPS 24

enum cls_kind { C_INV, C_UNIT, C_VARY };

struct ck; /* the state of one rewrite */

struct access {
	struct astra_expr *e;   /* the INDEX node */
	int read, write, cond;
	int group;
	int lane;               /* stride-2 groups: which element of the pair (0, 1) */
};

struct group {
	const struct astra_param *param;
	char *base;             /* the pointer expression visible at the chunk's start */
	char *index;            /* the index for element 0 of the chunk (loop index replaced) */
	char *key;
	char *elem;             /* element type */
	int reads, writes, uncond_reads, cond_writes;
	char mode;              /* 'R' load, 'W' store, 'X' load and store, 0 scalar */
	int ldg;
	int cached;             /* the register cache slot for this data, -1: none */
	int first;              /* cached: this loop loads the slot (later loops reuse it) */
	int stride;             /* 1, or 2 for interleaved pairs x[2*i], x[2*i+1] */
	int lanes_read, lanes_written; /* stride 2: bit 0 and bit 1 for the pair's elements */
	char *reg;              /* register array to index with [k]; NULL: <pfx>_v<group> */
};

/* One loop (or the guarded body) being rewritten. */
struct unit {
	struct astra_stmt *stmt;     /* the for statement, or the guard if */
	struct astra_stmt *body;     /* BODY (for guard mode form B: the first statement of it) */
	size_t body_off, body_end;   /* bytes of BODY's text */
	char *var, *var_type;        /* loop index and its declared type */
	char *start, *limit, *stride;/* expressions (text) */
	struct access *acc;
	size_t nr_acc, alloc_acc;
	struct group groups[MAX_GROUPS];
	int nr_groups;
	struct astra_vec divisors;   /* D of i / D and i % D */
	int vectorized;              /* number of vector groups */
	char *prologue;              /* guard mode: declarations moved into the body */
	int multi;                   /* BODY is u->body and its following siblings */
	struct astra_stmt **stmts;   /* BODY's top-level statements */
	size_t nr_stmts, alloc_stmts;
	char *hoist;                 /* per statement: 1 when hoisted out of the per-element loop */
	struct astra_vec hnames;     /* locals the hoisted statements define */
	struct astra_param fake[8];  /* pointers chosen by a chunk-invariant expression */
	int nr_fake;
	int unresolved_reads, unresolved_writes; /* through local pointers the rules cannot follow */
	int loads_may_alias;         /* a write goes through something other than a known parameter */
	const struct astra_param *written[16]; /* parameters BODY writes (found before the analysis) */
	int lane_loop;               /* spread over a warp's lanes */
	int nr_written;
};

struct ck {
	struct astra_rk *rk;
	struct astra_facts f;
	struct astra_syn *syn;
	const struct astra_chunk_opts *o;
	struct astra_buf *why;
	struct unit *u;              /* the unit being analysed */
	char *pfx;                   /* name prefix of generated variables */
	int ept;
	int fail;                    /* set with why when the unit must be declined */
};

/* ------------------------------------------------------------- classify */

static int tok_is_var(struct ck *c, size_t t)
{
	return c->syn->toks[t].kind == SYN_IDENT && astra_syn_is(c->syn, t, c->u->var) &&
	       !(t > 0 && (astra_syn_is(c->syn, t - 1, ".") || astra_syn_is(c->syn, t - 1, "->")));
}

static int in_body(struct ck *c, size_t t)
{
	return astra_syn_off(c->syn, t) >= c->u->body_off && astra_syn_off(c->syn, t) < c->u->body_end;
}

/* Is the local declared inside BODY? */
static int local_in_body(struct ck *c, const struct astra_local *l)
{
	return in_body(c, l->d.name);
}

static size_t body_t0(struct ck *c)
{
	size_t t = 0;
	while (t < c->syn->nr_toks && astra_syn_off(c->syn, t) < c->u->body_off)
		t++;
	return t;
}

static size_t body_t1(struct ck *c)
{
	size_t t = body_t0(c);
	while (t < c->syn->nr_toks && astra_syn_off(c->syn, t) < c->u->body_end)
		t++;
	return t;
}

static int assigned_in_body(struct ck *c, const char *name, size_t len)
{
	return astra_facts_assigned_in(&c->f, name, len, body_t0(c), body_t1(c));
}

static int written_param(struct ck *c, const struct astra_param *p);

static int cls_depth;

static enum cls_kind cls(struct ck *c, const struct astra_expr *e);

/* Anything not mentioning the loop index (directly or through locals set in BODY). */
static enum cls_kind cls_ident(struct ck *c, size_t t)
{
	const struct astra_syn *syn = c->syn;
	const struct astra_local *l;
	const struct astra_param *p;
	const char *s = syn->text + syn->toks[t].off;
	size_t n = syn->toks[t].len;
	if (tok_is_var(c, t))
		return C_UNIT;
	if (astra_syn_is(syn, t, "threadIdx") || astra_syn_is(syn, t, "laneid"))
		return C_VARY;
	l = astra_facts_local(&c->f, s, n);
	if (l) {
		struct astra_expr *init;
		enum cls_kind k;
		size_t h;
		for (h = 0; h < c->u->hnames.nr; h++)
			if (strlen(c->u->hnames.v[h]) == n && !memcmp(c->u->hnames.v[h], s, n))
				return C_INV;
		if (l->nr_decls != 1)
			return C_VARY;
		if (!local_in_body(c, l))
			return assigned_in_body(c, s, n) ? C_VARY : C_INV;
		if (l->assigned || l->d.init1 <= l->d.init0 || l->d.is_array || cls_depth > 12)
			return C_VARY;
		init = astra_syn_expr(c->syn, l->d.init0, l->d.init1);
		if (!init)
			return C_VARY;
		cls_depth++;
		k = cls(c, init);
		cls_depth--;
		return k;
	}
	p = astra_rk_param(c->rk, s, n);
	if (p && assigned_in_body(c, s, n))
		return C_VARY;
	return C_INV;
}

static int is_int_type_text(const char *t)
{
	return strstr(t, "int") || strstr(t, "long") || strstr(t, "size_t") || strstr(t, "unsigned") ||
	       strstr(t, "short");
}

static enum cls_kind cls(struct ck *c, const struct astra_expr *e)
{
	const struct astra_syn *syn = c->syn;
	enum cls_kind a, b;
	size_t i;
	if (!e)
		return C_VARY;
	switch (e->kind) {
	case EX_LIT:
		return C_INV;
	case EX_IDENT:
		return e->t1 == e->t0 + 1 ? cls_ident(c, e->t0) : C_INV;
	case EX_PAREN:
		return cls(c, e->a);
	case EX_CAST: {
		char *ty = astra_syn_text(syn, e->ty0, e->ty1);
		enum cls_kind k = cls(c, e->a);
		if (k == C_UNIT && !is_int_type_text(ty))
			k = C_VARY;
		free(ty);
		return k;
	}
	case EX_MEMBER:
		/* threadIdx.x and friends vary; blockIdx.x, blockDim.x do not (loops mode) */
		if (e->a->kind == EX_IDENT && astra_syn_is(syn, e->a->t0, "threadIdx"))
			return C_VARY;
		if (e->a->kind == EX_IDENT && astra_syn_is(syn, e->a->t0, "blockIdx") && c->u->stride &&
		    strstr(c->u->stride, "gridDim"))
			return C_VARY;
		return cls(c, e->a) == C_INV ? C_INV : C_VARY;
	case EX_BINARY:
		a = cls(c, e->a);
		b = cls(c, e->b);
		if (a == C_VARY || b == C_VARY)
			return C_VARY;
		if (astra_syn_is(syn, e->op, "+"))
			return a == C_UNIT && b == C_UNIT ? C_VARY : (a == C_UNIT || b == C_UNIT) ? C_UNIT : C_INV;
		if (astra_syn_is(syn, e->op, "-"))
			return b == C_UNIT ? C_VARY : a;
		if (a == C_INV && b == C_INV)
			return C_INV;
		if ((astra_syn_is(syn, e->op, "/") || astra_syn_is(syn, e->op, "%")) && a == C_UNIT && b == C_INV) {
			/* only the bare index: (i0 + k) / D stays in one row when D % EPT == 0 */
			const struct astra_expr *x = e->a;
			while (x->kind == EX_PAREN)
				x = x->a;
			if (x->kind == EX_IDENT && x->t1 == x->t0 + 1 && tok_is_var(c, x->t0)) {
				astra_vec_push_owned(&c->u->divisors, astra_syn_text(syn, e->b->t0, e->b->t1));
				return astra_syn_is(syn, e->op, "/") ? C_INV : C_UNIT;
			}
		}
		return C_VARY;
	case EX_INDEX: {
		/* a load with a chunk-invariant index from memory the loop does not write */
		char *off = NULL;
		const struct astra_param *p;
		if (e->a->kind != EX_IDENT || cls(c, e->b) != C_INV)
			return C_VARY;
		p = astra_facts_pointer(&c->f, syn->text + syn->toks[e->a->t0].off, syn->toks[e->a->t0].len, &off);
		free(off);
		if (!p || written_param(c, p))
			return C_VARY;
		if (c->u->loads_may_alias && !(c->rk->k->pragma.flags & ASTRA_PRAGMA_NOALIAS))
			return C_VARY;
		return C_INV;
	}
	case EX_CALL:
		for (i = 0; i < e->nr_args; i++)
			if (cls(c, e->args[i]) != C_INV)
				return C_VARY;
		return e->a->kind == EX_IDENT ? C_INV : C_VARY;
	case EX_COND:
		return cls(c, e->a) == C_INV && cls(c, e->b) == C_INV && cls(c, e->c) == C_INV ? C_INV : C_VARY;
	case EX_UNARY:
		if (astra_syn_is(syn, e->op, "-") || astra_syn_is(syn, e->op, "+") || astra_syn_is(syn, e->op, "~") ||
		    astra_syn_is(syn, e->op, "!"))
			return cls(c, e->a) == C_INV ? C_INV : C_VARY;
		return C_VARY;
	case EX_OTHER: /* sizeof */
		return C_INV;
	default:
		return C_VARY;
	}
}

/* ---------------------------------------------------------- expansion */

struct expand {
	struct ck *c;
	const char *var_text;  /* what the loop index becomes */
	int depth;
};

static char *expand_rw(struct astra_syn *syn, struct astra_expr *e, char **kids, size_t n, void *data);

/* e's text with the loop index replaced and locals of BODY expanded. */
static char *expand(struct ck *c, struct astra_expr *e, const char *var_text)
{
	struct expand x;
	x.c = c;
	x.var_text = var_text;
	x.depth = 0;
	return astra_expr_rewrite(c->syn, e, expand_rw, &x);
}

static char *expand_rw(struct astra_syn *syn, struct astra_expr *e, char **kids, size_t n, void *data)
{
	struct expand *x = data;
	struct ck *c = x->c;
	const struct astra_local *l;
	(void)kids;
	(void)n;
	if (e->kind != EX_IDENT || e->t1 != e->t0 + 1)
		return NULL;
	if (tok_is_var(c, e->t0))
		return xasprintf("(%s)", x->var_text);
	l = astra_facts_local_tok(&c->f, e->t0);
	if (l && astra_vec_find(&c->u->hnames, l->name) >= 0)
		return NULL; /* hoisted: defined before the chunk's loads */
	if (l && local_in_body(c, l) && l->d.init1 > l->d.init0 && x->depth < 12) {
		struct astra_expr *init = astra_syn_expr(syn, l->d.init0, l->d.init1);
		char *t, *r;
		if (!init)
			return NULL;
		x->depth++;
		t = astra_expr_rewrite(syn, init, expand_rw, x);
		x->depth--;
		r = xasprintf("(%s)", t);
		free(t);
		return r;
	}
	return NULL;
}

/* ------------------------------------------------------------- pointers */

static int written_param(struct ck *c, const struct astra_param *p)
{
	int i;
	for (i = 0; i < c->u->nr_written; i++)
		if (c->u->written[i] == p)
			return 1;
	for (i = 0; i < c->u->nr_groups; i++)
		if (c->u->groups[i].param == p && c->u->groups[i].writes)
			return 1;
	return 0;
}

/*
 * A local pointer set once, per chunk, by a hoisted statement (`T *v = c ?
 * a + x : b + y`): a base of its own, since the rules cannot tell which
 * parameter it points into.
 */
static const struct astra_param *opaque(struct ck *c, const struct astra_local *l, char **base)
{
	struct unit *u = c->u;
	struct astra_param *p;
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i, star = NONE;
	int k;
	for (k = 0; k < u->nr_fake; k++)
		if (!strcmp(u->fake[k].name, l->name)) {
			*base = xstrdup(l->name);
			return &u->fake[k];
		}
	if (u->nr_fake == (int)ARRAY_SIZE(u->fake))
		return NULL;
	for (i = l->d.ptr0; i < l->d.ptr1; i++)
		if (astra_syn_is(c->syn, i, "*"))
			star = i;
	if (star == NONE || star != l->d.ptr0)
		return NULL; /* T **p and the like */
	p = &u->fake[u->nr_fake++];
	memset(p, 0, sizeof(*p));
	p->name = xstrdup(l->name);
	for (i = l->d.ty0; i < l->d.ty1; i++) {
		if (astra_syn_is(c->syn, i, "const")) {
			p->is_const = 1;
			continue;
		}
		if (astra_syn_is(c->syn, i, "__restrict__") || astra_syn_is(c->syn, i, "volatile"))
			continue;
		if (b.len)
			astra_buf_addch(&b, ' ');
		astra_buf_add(&b, c->syn->text + c->syn->toks[i].off, c->syn->toks[i].len);
	}
	p->elem_type = astra_buf_detach(&b, NULL);
	p->type = xstrdup("");
	p->is_pointer = 1;
	*base = xstrdup(l->name);
	return p;
}

/*
 * Resolve the base of an INDEX: a pointer parameter, or a set-once local
 * pointer `X + off` / `&X[off]` / `X` into one.  *base gets the pointer
 * expression to index at the chunk's start, *extra the offsets added by
 * locals of BODY (expanded), *k the class of those offsets.
 */
static const struct astra_param *resolve(struct ck *c, size_t t, char **base, struct astra_buf *extra,
					 enum cls_kind *k, int depth)
{
	const struct astra_syn *syn = c->syn;
	const struct astra_param *p = astra_rk_param(c->rk, syn->text + syn->toks[t].off, syn->toks[t].len);
	const struct astra_local *l = astra_facts_local_tok(&c->f, t);
	struct astra_expr *init, *e, *ptr = NULL, *off = NULL;
	if (p && !l) {
		if (!p->is_pointer || assigned_in_body(c, p->name, strlen(p->name)))
			return NULL;
		*base = xstrdup(p->name);
		return p;
	}
	if (!l || !l->is_pointer || l->nr_decls != 1 || l->assigned || l->d.init1 <= l->d.init0 || depth > 8)
		return NULL;
	if (local_in_body(c, l)) {
		size_t h;
		for (h = 0; h < c->u->hnames.nr; h++)
			if (!strcmp(c->u->hnames.v[h], l->name))
				return opaque(c, l, base);
	}
	if (!local_in_body(c, l)) {
		char *dummy = NULL;
		p = astra_facts_pointer(&c->f, l->name, strlen(l->name), &dummy);
		free(dummy);
		if (p)
			*base = xstrdup(l->name);
		return p;
	}
	init = astra_syn_expr(c->syn, l->d.init0, l->d.init1);
	if (!init)
		return NULL;
	e = init;
	while (e->kind == EX_PAREN)
		e = e->a;
	if (e->kind == EX_IDENT) {
		ptr = e;
	} else if (e->kind == EX_BINARY && astra_syn_is(syn, e->op, "+")) {
		struct astra_expr *x = e->a;
		while (x->kind == EX_PAREN)
			x = x->a;
		if (x->kind == EX_IDENT) {
			ptr = x;
			off = e->b;
		} else {
			x = e->b;
			while (x->kind == EX_PAREN)
				x = x->a;
			if (x->kind == EX_IDENT) {
				ptr = x;
				off = e->a;
			}
		}
	} else if (e->kind == EX_UNARY && astra_syn_is(syn, e->op, "&") && e->a->kind == EX_INDEX &&
		   e->a->a->kind == EX_IDENT) {
		ptr = e->a->a;
		off = e->a->b;
	}
	if (!ptr || ptr->t1 != ptr->t0 + 1)
		return NULL;
	p = resolve(c, ptr->t0, base, extra, k, depth + 1);
	if (!p)
		return NULL;
	if (off) {
		enum cls_kind ok = cls(c, off);
		char *ot;
		if (ok == C_VARY || (ok == C_UNIT && *k == C_UNIT)) {
			*k = C_VARY;
			return p;
		}
		if (ok == C_UNIT)
			*k = C_UNIT;
		ot = expand(c, off, "@I0@");
		astra_buf_addf(extra, "(%s) + ", ot);
		free(ot);
	}
	return p;
}

/* --------------------------------------------------------- collecting */

struct collect {
	struct ck *c;
	struct astra_stmt *owner;
};

/* Does the part owned by statement s run at most once per element, unconditionally? */
static int stmt_cond(struct ck *c, struct astra_stmt *s)
{
	struct astra_stmt *p;
	if (s->kind == STMT_FOR || s->kind == STMT_WHILE || s->kind == STMT_DO)
		return 1;
	for (p = s->parent; p && p != c->u->body; p = p->parent) {
		if (astra_syn_off(c->syn, p->t0) < c->u->body_off)
			break;
		if (p->kind == STMT_IF || p->kind == STMT_FOR || p->kind == STMT_WHILE || p->kind == STMT_DO ||
		    p->kind == STMT_SWITCH)
			return 1;
	}
	return 0;
}

static int expr_cond(const struct astra_syn *syn, const struct astra_expr *e)
{
	const struct astra_expr *x;
	for (x = e; x->parent; x = x->parent) {
		const struct astra_expr *p = x->parent;
		if (p->kind == EX_COND && x != p->a)
			return 1;
		if (p->kind == EX_BINARY && x == p->b && (astra_syn_is(syn, p->op, "&&") || astra_syn_is(syn, p->op, "||")))
			return 1;
	}
	return 0;
}

static int add_group(struct ck *c, const struct astra_param *p, char *base, char *index, const char *key)
{
	struct unit *u = c->u;
	int i;
	for (i = 0; i < u->nr_groups; i++)
		if (!strcmp(u->groups[i].key, key)) {
			free(base);
			free(index);
			return i;
		}
	if (u->nr_groups == MAX_GROUPS) {
		free(base);
		free(index);
		return -1;
	}
	memset(&u->groups[i], 0, sizeof(u->groups[i]));
	u->groups[i].param = p;
	u->groups[i].base = base;
	u->groups[i].index = index;
	u->groups[i].key = xstrdup(key);
	u->groups[i].elem = xstrdup(p->elem_type ? p->elem_type : "char");
	u->groups[i].cached = -1;
	u->groups[i].stride = 1;
	u->nr_groups++;
	return i;
}

/*
 * An index `2 * X + c` (c 0 or 1; also X * 2, c + 2 * X) with X the loop
 * index plus an invariant: the pair layout of GPT-J rotary.  Returns X and
 * sets *lane, or NULL.
 */
static struct astra_expr *pair_index(struct ck *c, struct astra_expr *e, int *lane)
{
	const struct astra_syn *syn = c->syn;
	struct astra_expr *m = e;
	*lane = 0;
	while (m->kind == EX_PAREN)
		m = m->a;
	if (m->kind == EX_BINARY && astra_syn_is(syn, m->op, "+")) {
		struct astra_expr *a = m->a, *b = m->b;
		if (b->kind == EX_LIT && astra_syn_is(syn, b->t0, "1")) {
			*lane = 1;
			m = a;
		} else if (a->kind == EX_LIT && astra_syn_is(syn, a->t0, "1")) {
			*lane = 1;
			m = b;
		} else {
			return NULL;
		}
		while (m->kind == EX_PAREN)
			m = m->a;
	}
	if (m->kind != EX_BINARY || !astra_syn_is(syn, m->op, "*"))
		return NULL;
	if (m->a->kind == EX_LIT && astra_syn_is(syn, m->a->t0, "2") && cls(c, m->b) == C_UNIT)
		return m->b;
	if (m->b->kind == EX_LIT && astra_syn_is(syn, m->b->t0, "2") && cls(c, m->a) == C_UNIT)
		return m->a;
	return NULL;
}

static int visit_expr(struct astra_expr *e, void *data)
{
	struct collect *col = data;
	struct ck *c = col->c;
	const struct astra_syn *syn = c->syn;
	struct unit *u = c->u;
	struct access a;
	const struct astra_param *p;
	char *base = NULL, *idx, *key;
	struct astra_buf extra = ASTRA_BUF_INIT;
	enum cls_kind k = C_INV, ik;
	const struct astra_expr *par;

	if (e->kind == EX_IDENT && e->t1 == e->t0 + 1) {
		/* a pointer used other than as the base of [] */
		char *off = NULL;
		p = astra_facts_pointer(&c->f, syn->text + syn->toks[e->t0].off, syn->toks[e->t0].len, &off);
		free(off);
		if (!p || (e->parent && e->parent->kind == EX_INDEX && e->parent->a == e))
			return 0;
		/* the initializer of a local pointer alias is fine; anything else escapes */
		if (col->owner->kind == STMT_DECL) {
			size_t i;
			for (i = 0; i < c->f.nr_locals; i++) {
				const struct astra_local *al = &c->f.locals[i];
				if (al->is_pointer && e->t0 >= al->d.init0 && e->t0 < al->d.init1)
					return 0;
			}
		}
		ALLOC_GROW(u->acc, u->nr_acc + 1, u->alloc_acc);
		memset(&u->acc[u->nr_acc], 0, sizeof(a));
		u->acc[u->nr_acc].e = e;
		u->acc[u->nr_acc].write = 1; /* escapes: treat as written */
		u->acc[u->nr_acc].group = -1;
		{
			/* record against the parameter, so a written pointer can be refused */
			char *key2 = xasprintf("%s|escape", p->name);
			int g = add_group(c, p, xstrdup(p->name), xstrdup(""), key2);
			free(key2);
			if (g >= 0) {
				u->groups[g].writes++;
				u->groups[g].mode = 0;
			}
			u->acc[u->nr_acc].group = g;
		}
		u->nr_acc++;
		return 0;
	}
	if (e->kind != EX_INDEX || e->a->kind != EX_IDENT || e->a->t1 != e->a->t0 + 1)
		return 0;
	p = resolve(c, e->a->t0, &base, &extra, &k, 0);
	if (!p) {
		const struct astra_local *l = astra_facts_local_tok(&c->f, e->a->t0);
		astra_buf_release(&extra);
		free(base);
		if (l && !l->d.is_array) {
			/* a pointer the rules cannot follow: it may alias anything */
			par = e->parent;
			if ((par && par->kind == EX_ASSIGN && par->a == e) || (par && par->kind == EX_POSTFIX))
				u->unresolved_writes++;
			else
				u->unresolved_reads++;
		}
		return 0;
	}
	memset(&a, 0, sizeof(a));
	a.e = e;
	par = e->parent;
	if (par && par->kind == EX_ASSIGN && par->a == e) {
		a.write = 1;
		a.read = !astra_syn_is(syn, par->op, "=");
	} else if (par && (par->kind == EX_POSTFIX || (par->kind == EX_UNARY && (astra_syn_is(syn, par->op, "++") ||
										      astra_syn_is(syn, par->op, "--"))))) {
		a.write = a.read = 1;
	} else if (par && par->kind == EX_UNARY && astra_syn_is(syn, par->op, "&")) {
		a.write = a.read = 1;
		k = C_VARY; /* the address escapes: never vectorized */
	} else if (par && par->kind == EX_MEMBER && par->parent && par->parent->kind == EX_ASSIGN &&
		   par->parent->a == par) {
		a.write = a.read = 1; /* part of an element is written */
	} else {
		a.read = 1;
	}
	a.cond = stmt_cond(c, col->owner) || expr_cond(syn, e);
	ik = cls(c, e->b);
	if (ik == C_VARY && k == C_INV) {
		int lane;
		struct astra_expr *x = pair_index(c, e->b, &lane);
		if (x) {
			struct astra_buf kb = ASTRA_BUF_INIT;
			size_t i;
			char *t = expand(c, x, "@I0@");
			idx = xasprintf("%s2 * (%s)", extra.buf, t);
			free(t);
			for (i = 0; idx[i]; i++)
				if (idx[i] != ' ' && idx[i] != '\t' && idx[i] != '\n')
					astra_buf_addch(&kb, idx[i]);
			key = xasprintf("%s|pair|%s", p->name, kb.buf);
			astra_buf_release(&kb);
			a.group = add_group(c, p, base, idx, key);
			free(key);
			a.lane = lane;
			if (a.group >= 0) {
				struct group *g = &u->groups[a.group];
				g->stride = 2;
				g->reads += a.read;
				g->writes += a.write;
				g->uncond_reads += a.read && !a.cond;
				g->cond_writes += a.write && a.cond;
				if (a.read)
					g->lanes_read |= 1 << lane;
				if (a.write && !a.cond)
					g->lanes_written |= 1 << lane;
			}
			astra_buf_release(&extra);
			if (a.group < 0) {
				c->fail = 1;
				astra_buf_adds(c->why, "too many distinct memory accesses in the loop");
				return 1;
			}
			ALLOC_GROW(u->acc, u->nr_acc + 1, u->alloc_acc);
			u->acc[u->nr_acc++] = a;
			return 0;
		}
	}
	if (ik == C_VARY || (ik == C_UNIT && k == C_UNIT))
		k = C_VARY;
	else if (ik == C_UNIT)
		k = C_UNIT;
	if (k != C_UNIT) {
		/* stays scalar; a written pointer accessed like this cannot be vectorized */
		key = xasprintf("%s|scalar", p->name);
		a.group = add_group(c, p, base, xstrdup(""), key);
		free(key);
		if (a.group >= 0) {
			u->groups[a.group].writes += a.write;
			u->groups[a.group].reads += a.read;
		}
	} else {
		struct astra_buf kb = ASTRA_BUF_INIT;
		size_t i;
		char *t = expand(c, e->b, "@I0@");
		idx = xasprintf("%s%s", extra.buf, t);
		free(t);
		for (i = 0; idx[i]; i++)
			if (idx[i] != ' ' && idx[i] != '\t' && idx[i] != '\n')
				astra_buf_addch(&kb, idx[i]);
		key = xasprintf("%s|%s", p->name, kb.buf);
		astra_buf_release(&kb);
		a.group = add_group(c, p, base, idx, key);
		free(key);
		if (a.group >= 0) {
			struct group *g = &u->groups[a.group];
			g->reads += a.read;
			g->writes += a.write;
			g->uncond_reads += a.read && !a.cond;
			g->cond_writes += a.write && a.cond;
		}
	}
	astra_buf_release(&extra);
	if (a.group < 0) {
		c->fail = 1;
		astra_buf_adds(c->why, "too many distinct memory accesses in the loop");
		return 1;
	}
	ALLOC_GROW(u->acc, u->nr_acc + 1, u->alloc_acc);
	u->acc[u->nr_acc++] = a;
	return 0;
}

static int visit_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e,
		      void *data)
{
	struct ck *c = data;
	struct collect col;
	(void)f;
	(void)t0;
	(void)t1;
	if (!e) {
		char *txt = astra_syn_text(c->syn, t0, t1);
		c->fail = 1;
		astra_buf_addf(c->why, "cannot read `%s`", txt);
		free(txt);
		return 1;
	}
	col.c = c;
	col.owner = s;
	astra_expr_walk(e, visit_expr, &col);
	return c->fail;
}

/* Statements of BODY that forbid the rewrite. */
static int check_stmt(struct astra_stmt *s, void *data)
{
	struct ck *c = data;
	struct astra_stmt *p;
	if (s->kind == STMT_RETURN || s->kind == STMT_GOTO || s->kind == STMT_LABEL || s->kind == STMT_OTHER) {
		c->fail = 1;
		astra_buf_adds(c->why, s->kind == STMT_RETURN ? "the loop body returns" :
				       "the loop body has a goto, label or statement the rules cannot read");
		return 1;
	}
	if (s->kind == STMT_BREAK) {
		for (p = s->parent; p; p = p->parent) {
			if (p->kind == STMT_FOR || p->kind == STMT_WHILE || p->kind == STMT_DO || p->kind == STMT_SWITCH)
				break;
		}
		if (!p || astra_syn_off(c->syn, p->t0) < c->u->body_off) {
			c->fail = 1;
			astra_buf_adds(c->why, "the loop body breaks out of the loop");
			return 1;
		}
	}
	return 0;
}

static const char *const forbidden_calls[] = {
	"__syncthreads", "__syncwarp", "__shfl_sync", "__shfl_xor_sync", "__shfl_down_sync",
	"__shfl_up_sync", "__ballot_sync", "__any_sync", "__all_sync", "__activemask",
	"__threadfence", "__threadfence_block", "printf", NULL,
};

/* BODY's top-level statements into u->stmts. */
static void body_stmts(struct ck *c)
{
	struct unit *u = c->u;
	size_t i;
	if (u->multi) {
		struct astra_stmt *blk = u->body->parent;
		for (i = 0; i < blk->nr_kids; i++)
			if (astra_syn_off(c->syn, blk->kids[i]->t0) >= u->body_off) {
				ALLOC_GROW(u->stmts, u->nr_stmts + 1, u->alloc_stmts);
				u->stmts[u->nr_stmts++] = blk->kids[i];
			}
	} else if (u->body->kind == STMT_BLOCK) {
		for (i = 0; i < u->body->nr_kids; i++) {
			ALLOC_GROW(u->stmts, u->nr_stmts + 1, u->alloc_stmts);
			u->stmts[u->nr_stmts++] = u->body->kids[i];
		}
	} else {
		ALLOC_GROW(u->stmts, u->nr_stmts + 1, u->alloc_stmts);
		u->stmts[u->nr_stmts++] = u->body;
	}
	u->hoist = xcalloc(u->nr_stmts + 1, 1);
}

/* Which parameters does BODY write?  Writes through other pointers make loads unsafe to hoist. */
static int prescan_expr(struct astra_expr *e, void *data)
{
	struct ck *c = data;
	struct unit *u = c->u;
	struct astra_expr *lhs = NULL;
	const struct astra_param *p;
	char *off = NULL;
	if (e->kind == EX_ASSIGN)
		lhs = e->a;
	else if (e->kind == EX_POSTFIX || (e->kind == EX_UNARY && (astra_syn_is(c->syn, e->op, "++") ||
								   astra_syn_is(c->syn, e->op, "--"))))
		lhs = e->a;
	while (lhs && (lhs->kind == EX_PAREN || lhs->kind == EX_MEMBER))
		lhs = lhs->a;
	if (!lhs || lhs->kind != EX_INDEX)
		return 0;
	if (lhs->a->kind != EX_IDENT || lhs->a->t1 != lhs->a->t0 + 1) {
		u->loads_may_alias = 1;
		return 0;
	}
	p = astra_facts_pointer(&c->f, c->syn->text + c->syn->toks[lhs->a->t0].off, c->syn->toks[lhs->a->t0].len, &off);
	free(off);
	if (!p) {
		const struct astra_local *l = astra_facts_local_tok(&c->f, lhs->a->t0);
		if (!l || !l->d.is_array)
			u->loads_may_alias = 1;
		return 0;
	}
	if (u->nr_written < (int)ARRAY_SIZE(u->written))
		u->written[u->nr_written++] = p;
	else
		u->loads_may_alias = 1;
	return 0;
}

static int prescan_part(struct astra_facts *f, struct astra_stmt *st, size_t t0, size_t t1, struct astra_expr *e,
			void *data)
{
	(void)f;
	(void)st;
	(void)t0;
	(void)t1;
	if (e)
		astra_expr_walk(e, prescan_expr, data);
	else
		((struct ck *)data)->u->loads_may_alias = 1;
	return 0;
}

static int has_side_effects(struct ck *c, size_t t0, size_t t1)
{
	static const char *const se[] = { "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=",
					  "++", "--", "atomicAdd", "atomicMax", "atomicMin", "atomicExch",
					  "atomicCAS", "printf", "__syncthreads", NULL };
	size_t t;
	const char *const *x;
	for (t = t0; t < t1; t++)
		for (x = se; *x; x++)
			if (astra_syn_is(c->syn, t, *x))
				return 1;
	return 0;
}

/*
 * Choose the statements of BODY that compute the same thing for every
 * element of a chunk (declarations of chunk-invariant values, and
 * assignments to them), so the vector path runs them once per chunk.
 * Hoisting stops at the first statement with an effect that is not
 * invariant: what follows may depend on it.
 */
static void choose_hoist(struct ck *c)
{
	struct unit *u = c->u;
	struct astra_vec blocked = ASTRA_VEC_INIT;
	int round;
	size_t i, h;
	for (round = 0; round < 6; round++) {
		int again = 0;
		astra_vec_clear(&u->hnames);
		memset(u->hoist, 0, u->nr_stmts);
		for (i = 0; i < u->nr_stmts; i++) {
			struct astra_stmt *st = u->stmts[i];
			if (st->kind == STMT_DECL) {
				struct astra_decl *d = NULL;
				size_t n = astra_syn_decls(c->syn, st->a0, st->a1, &d), k;
				int ok = n > 0 && astra_syn_find(c->syn, st->a0, st->a1, "__shared__") == NONE &&
					 astra_syn_find(c->syn, st->a0, st->a1, "static") == NONE;
				for (k = 0; k < n && ok; k++) {
					char *nm = astra_syn_tokstr(c->syn, d[k].name);
					struct astra_expr *init = d[k].init1 > d[k].init0 ?
						astra_syn_expr(c->syn, d[k].init0, d[k].init1) : NULL;
					if (d[k].is_array || !init || astra_vec_find(&blocked, nm) >= 0 ||
					    (astra_syn_is(c->syn, d[k].init0 - 1, "=") ? 0 : 1) || cls(c, init) != C_INV)
						ok = 0;
					free(nm);
				}
				if (ok) {
					u->hoist[i] = 1;
					for (k = 0; k < n; k++)
						astra_vec_push_owned(&u->hnames, astra_syn_tokstr(c->syn, d[k].name));
				} else {
					int se = !n;
					for (k = 0; k < n && !se; k++)
						se = d[k].init1 > d[k].init0 && has_side_effects(c, d[k].init0, d[k].init1);
					if (se) {
						free(d);
						break;
					}
				}
				free(d);
				continue;
			}
			if (st->kind == STMT_EXPR) {
				struct astra_expr *e = astra_syn_expr(c->syn, st->a0, st->a1);
				if (e && e->kind == EX_ASSIGN && e->a->kind == EX_IDENT && e->a->t1 == e->a->t0 + 1) {
					char *nm = astra_syn_tokstr(c->syn, e->a->t0);
					int ok = astra_vec_find(&u->hnames, nm) >= 0 && cls(c, e->b) == C_INV;
					free(nm);
					if (ok) {
						u->hoist[i] = 1;
						continue;
					}
				}
				if (e && !has_side_effects(c, st->a0, st->a1))
					continue;
			}
			break;
		}
		/* a hoisted value changed per element later on cannot be hoisted */
		for (h = 0; h < u->hnames.nr; h++) {
			const char *nm = u->hnames.v[h];
			for (i = 0; i < u->nr_stmts; i++)
				if (!u->hoist[i] && astra_facts_assigned_in(&c->f, nm, strlen(nm), u->stmts[i]->t0,
									    u->stmts[i]->t1)) {
					astra_vec_push(&blocked, nm);
					again = 1;
					break;
				}
		}
		if (!again)
			break;
	}
	if (round == 6) {
		astra_vec_clear(&u->hnames);
		memset(u->hoist, 0, u->nr_stmts);
	}
	astra_vec_clear(&blocked);
}

static void find_dead(struct ck *c);

/* Analyse c->u; 0 when it can be rewritten (maybe with nothing to vectorize), -1 declined. */
static int analyse(struct ck *c)
{
	struct unit *u = c->u;
	size_t t0 = body_t0(c), t1 = body_t1(c), t, i;
	const char *const *fc;
	int gi, j;

	for (t = t0; t < t1; t++) {
		for (fc = forbidden_calls; *fc; fc++)
			if (astra_syn_is(c->syn, t, *fc)) {
				astra_buf_addf(c->why, "the loop body calls %s", *fc);
				return -1;
			}
		if (astra_syn_is(c->syn, t, "__shared__")) {
			astra_buf_adds(c->why, "the loop body declares shared memory");
			return -1;
		}
	}
	if (assigned_in_body(c, u->var, strlen(u->var))) {
		astra_buf_addf(c->why, "the loop body changes the index %s", u->var);
		return -1;
	}
	body_stmts(c);
	for (i = 0; i < u->nr_stmts; i++)
		if (astra_syn_walk(u->stmts[i], check_stmt, c))
			return -1;
	/* Thread-varying values other than the index (threadIdx through a local...) */
	for (t = t0; t < t1; t++) {
		const struct astra_local *l;
		if (c->syn->toks[t].kind != SYN_IDENT || tok_is_var(c, t))
			continue;
		if (astra_syn_is(c->syn, t, "threadIdx") ||
		    (astra_syn_is(c->syn, t, "blockIdx") && strstr(u->stride, "gridDim"))) {
			astra_buf_adds(c->why, "the loop body depends on the thread index other than through the loop index");
			return -1;
		}
		l = astra_facts_local_tok(&c->f, t);
		if (l && !local_in_body(c, l) && l->d.init1 > l->d.init0 && u->lane_loop && l->nr_decls == 1 &&
		    !l->assigned && (astra_facts_tix(&c->f, astra_syn_expr(c->syn, l->d.init0, l->d.init1)) == TIX_GWARP ||
				     astra_facts_tix(&c->f, astra_syn_expr(c->syn, l->d.init0, l->d.init1)) == TIX_WID))
			continue; /* the warp's row, or its index in the block: the same for every lane */
		if (l && !local_in_body(c, l) && l->d.init1 > l->d.init0 &&
		    (astra_syn_find(c->syn, l->d.init0, l->d.init1, "threadIdx") != NONE ||
		     (strstr(u->stride, "gridDim") && astra_syn_find(c->syn, l->d.init0, l->d.init1, "blockIdx") != NONE))) {
			astra_buf_addf(c->why, "the loop body uses %s, which depends on the thread", l->name);
			return -1;
		}
	}
	for (i = 0; i < u->nr_stmts; i++)
		astra_facts_each_part(&c->f, u->stmts[i], prescan_part, c);
	choose_hoist(c);
	for (i = 0; i < u->nr_stmts && !c->fail; i++)
		astra_facts_each_part(&c->f, u->stmts[i], visit_part, c);
	if (c->fail)
		return -1;
	/* decide each group */
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		int written = 0, scalar = 0;
		if (!*g->index)
			continue; /* scalar or escape group */
		for (j = 0; j < u->nr_groups; j++)
			if (u->groups[j].param == g->param) {
				written |= u->groups[j].writes > 0;
				scalar |= !*u->groups[j].index;
			}
		if (written && scalar) {
			astra_buf_addf(c->why, "%s is written, and also accessed in a way that cannot be vectorized",
				       g->param->name);
			return -1;
		}
		if (g->stride == 2 && ((g->lanes_read | g->lanes_written) != 3 ||
				       (g->writes && g->lanes_written != 3 && !g->reads))) {
			/* a pair whose other element the original never touches: it may lie past the buffer */
			if (written) {
				astra_buf_addf(c->why, "%s is written in pairs of which one element is never accessed",
					       g->param->name);
				return -1;
			}
			continue;
		}
		if (g->writes)
			g->mode = (g->reads || g->cond_writes || (g->stride == 2 && g->lanes_written != 3)) ? 'X' : 'W';
		else if (g->uncond_reads)
			g->mode = 'R';
		else if (written) {
			astra_buf_addf(c->why, "%s is written and read only under a condition", g->param->name);
			return -1;
		}
		if (g->mode)
			u->vectorized++;
		g->ldg = g->mode == 'R' && !written && g->param->is_const &&
			 (c->rk->k->pragma.flags & ASTRA_PRAGMA_NOALIAS);
	}
	{
		int vwrites = 0, opaque_written = 0, bases_written = 0;
		const struct astra_param *last = NULL;
		for (gi = 0; gi < u->nr_groups; gi++) {
			struct group *g = &u->groups[gi];
			int fake = g->param >= u->fake && g->param < u->fake + ARRAY_SIZE(u->fake);
			if (g->writes && g->param != last) {
				bases_written++;
				last = g->param;
			}
			vwrites += (g->mode == 'W' || g->mode == 'X');
			opaque_written |= fake && g->writes;
		}
		if (vwrites && (u->unresolved_writes || u->unresolved_reads)) {
			astra_buf_adds(c->why, "the loop also goes through a local pointer the rules cannot follow, which "
					       "might alias a vectorized store");
			return -1;
		}
		if (opaque_written && bases_written > 1) {
			astra_buf_adds(c->why, "a pointer chosen per element is written next to other written memory");
			return -1;
		}
	}
	find_dead(c);
	return 0;
}

/* ------------------------------------------------------------ generate */

static char *subst_i0(const char *s, const char *i0)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *p;
	while ((p = strstr(s, "@I0@")) != NULL) {
		astra_buf_add(&b, s, (size_t)(p - s));
		astra_buf_adds(&b, i0);
		s = p + 4;
	}
	astra_buf_adds(&b, s);
	return astra_buf_detach(&b, NULL);
}

/* "&base[index at i0]" */
static char *addr(struct group *g, const char *i0)
{
	char *ix = subst_i0(g->index, i0), *r = xasprintf("&%s[%s]", g->base, ix);
	free(ix);
	return r;
}

static char *bytes_expr(struct ck *c, struct group *g)
{
	return xasprintf("%d * (int)sizeof(%s)", c->ept * g->stride, g->elem);
}

/* Chunk-wide conditions: whole chunk and divisions that keep it in one row. */
static void full_cond(struct ck *c, const char *i0, struct astra_buf *b)
{
	struct unit *u = c->u;
	struct astra_vec seen = ASTRA_VEC_INIT;
	size_t i;
	astra_buf_addf(b, "%s + %d <= (%s)", i0, c->ept, u->limit);
	for (i = 0; i < u->divisors.nr; i++) {
		char *d;
		if (astra_vec_find(&seen, u->divisors.v[i]) >= 0)
			continue;
		astra_vec_push(&seen, u->divisors.v[i]);
		d = subst_i0(u->divisors.v[i], i0);
		astra_buf_addf(b, " && (%s) %% %d == 0", d, c->ept);
		free(d);
	}
	astra_vec_clear(&seen);
}

/* Alignment of every vectorized access, and no overlap between chunks of a written pointer. */
static void align_cond(struct ck *c, const char *i0, struct astra_buf *b)
{
	struct unit *u = c->u;
	int gi, gj;
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		char *a, *by;
		if (!g->mode)
			continue;
		a = addr(g, i0);
		by = bytes_expr(c, g);
		astra_buf_addf(b, "%s%s(%s, (%s) < 16 ? (%s) : 16)", b->len ? " &&\n\t\t    " : "", ASTRA_HELPER("al"), a,
			       by, by);
		free(a);
		free(by);
	}
	for (gi = 0; gi < u->nr_groups; gi++)
		for (gj = gi + 1; gj < u->nr_groups; gj++) {
			struct group *x = &u->groups[gi], *y = &u->groups[gj];
			char *ax, *ay;
			if (!x->mode || !y->mode || x->param != y->param || (!x->writes && !y->writes))
				continue;
			ax = addr(x, i0);
			ay = addr(y, i0);
			astra_buf_addf(b, " &&\n\t\t    ((%s) - (%s) >= %d || (%s) - (%s) >= %d)", ax, ay, c->ept * y->stride, ay, ax,
				       c->ept * x->stride);
			free(ax);
			free(ay);
		}
	if (!b->len)
		astra_buf_adds(b, "true");
}

/* Is the access replaced by a register element in the vector path? */
static int replaced(struct ck *c, const struct access *a)
{
	return a->group >= 0 && c->u->groups[a->group].mode && a->e->kind == EX_INDEX;
}

/*
 * In the vector path, which top-level declarations of BODY are dead once
 * the vectorized accesses use registers (the row and column indices
 * computed only to index them)?  Sets u->hoist[i] = 2 for those.
 */
static void find_dead(struct ck *c)
{
	struct unit *u = c->u;
	size_t t0 = body_t0(c), t1 = body_t1(c), t, i, k;
	char *dead = xcalloc(t1 - t0 + 1, 1);
	int changed = 1;
	for (i = 0; i < u->nr_stmts; i++)
		if (u->hoist[i])
			memset(dead + (u->stmts[i]->t0 - t0), 1, u->stmts[i]->t1 - u->stmts[i]->t0);
	for (i = 0; i < u->nr_acc; i++)
		if (replaced(c, &u->acc[i]))
			memset(dead + (u->acc[i].e->b->t0 - t0), 1, u->acc[i].e->b->t1 - u->acc[i].e->b->t0);
	while (changed) {
		changed = 0;
		for (i = 0; i < u->nr_stmts; i++) {
			struct astra_stmt *st = u->stmts[i];
			struct astra_decl *d = NULL;
			char *nm;
			int used = 0;
			if (u->hoist[i] || st->kind != STMT_DECL || astra_syn_decls(c->syn, st->a0, st->a1, &d) != 1) {
				free(d);
				continue;
			}
			if (d[0].init1 <= d[0].init0 || d[0].is_array || has_side_effects(c, d[0].init0, d[0].init1)) {
				free(d);
				continue;
			}
			nm = astra_syn_tokstr(c->syn, d[0].name);
			for (t = t0; t < t1 && !used; t++) {
				if (dead[t - t0] || (t >= st->t0 && t < st->t1))
					continue;
				if (c->syn->toks[t].kind == SYN_IDENT && astra_syn_is(c->syn, t, nm) &&
				    !(t > 0 && (astra_syn_is(c->syn, t - 1, ".") || astra_syn_is(c->syn, t - 1, "->"))))
					used = 1;
			}
			if (!used) {
				u->hoist[i] = 2;
				for (k = st->t0; k < st->t1; k++)
					dead[k - t0] = 1;
				changed = 1;
			}
			free(nm);
			free(d);
		}
	}
	free(dead);
}

/*
 * In the vector path the chunk lies in one row of every divisor D
 * (full_cond), so for element k of the chunk at i0, i / D is i0 / D and
 * i % D is i0 % D + k: the divisions are computed once per chunk instead
 * of once per element.  Nodes inside text that another edit replaces
 * (taken[] over the body's tokens) are left alone.
 */
struct divs {
	struct ck *c;
	struct astra_syn_edits *e;
	const char *i0, *k;
	const char *taken;
	size_t t0;
};

static int div_expr(struct astra_expr *e, void *data)
{
	struct divs *d = data;
	struct ck *c = d->c;
	const struct astra_expr *x;
	char *dv;
	int is_div;
	size_t t;
	if (e->kind != EX_BINARY || !(astra_syn_is(c->syn, e->op, "/") || astra_syn_is(c->syn, e->op, "%")))
		return 0;
	for (x = e->a; x->kind == EX_PAREN; x = x->a)
		;
	if (x->kind != EX_IDENT || x->t1 != x->t0 + 1 || !tok_is_var(c, x->t0))
		return 0;
	for (t = e->t0; t < e->t1; t++)
		if (t < d->t0 || d->taken[t - d->t0])
			return 0;
	dv = astra_syn_text(c->syn, e->b->t0, e->b->t1);
	if (astra_vec_find(&c->u->divisors, dv) < 0) {
		free(dv);
		return 0;
	}
	is_div = astra_syn_is(c->syn, e->op, "/");
	astra_syn_edit_owned(d->e, astra_syn_off(c->syn, e->t0), astra_syn_end(c->syn, e->t1 - 1),
			      is_div ? xasprintf("((%s) / (%s))", d->i0, dv) :
				       xasprintf("((%s) %% (%s) + %s)", d->i0, dv, d->k));
	free(dv);
	for (t = e->t0; t < e->t1; t++)
		((char *)d->taken)[t - d->t0] = 1;
	return 0;
}

static int div_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e,
		    void *data)
{
	(void)f;
	(void)s;
	(void)t0;
	(void)t1;
	if (e)
		astra_expr_walk(e, div_expr, data);
	return 0;
}

/*
 * BODY's text: vectorized accesses become register elements, dead
 * statements go, and hoisted ones too unless keep_hoisted.  With i0 (the
 * vector path of a chunk that stays in one row), divisions of the loop
 * index by a divisor become per-chunk values (see div_expr).
 */
static int body_text3(struct ck *c, const char *elem_k, const char *i0, struct astra_buf *out, int vector,
		      int keep_hoisted)
{
	struct unit *u = c->u;
	struct astra_syn_edits e = { NULL, 0, 0 };
	size_t i;
	int r;
	char *taken = NULL;
	size_t bt0 = body_t0(c), bt1 = body_t1(c);
	if (vector && i0) {
		taken = xcalloc(bt1 - bt0 + 1, 1);
		for (i = 0; i < u->nr_stmts; i++)
			if (u->hoist[i] == 2 || (u->hoist[i] == 1 && !keep_hoisted))
				memset(taken + (u->stmts[i]->t0 - bt0), 1, u->stmts[i]->t1 - u->stmts[i]->t0);
		for (i = 0; i < u->nr_acc; i++)
			if (replaced(c, &u->acc[i]))
				memset(taken + (u->acc[i].e->t0 - bt0), 1, u->acc[i].e->t1 - u->acc[i].e->t0);
	}
	if (vector) {
		for (i = 0; i < u->nr_stmts; i++)
			if (u->hoist[i] == 2 || (u->hoist[i] == 1 && !keep_hoisted))
				astra_syn_edit(&e, astra_syn_off(c->syn, u->stmts[i]->t0),
						astra_syn_end(c->syn, u->stmts[i]->t1 - 1), "");
		for (i = 0; i < u->nr_acc; i++) {
			struct access *a = &u->acc[i];
			size_t k, inside = 0;
			if (a->group < 0 || !u->groups[a->group].mode || a->e->kind != EX_INDEX)
				continue;
			for (k = 0; k < u->nr_stmts; k++)
				if ((u->hoist[k] == 2 || (u->hoist[k] == 1 && !keep_hoisted)) && a->e->t0 >= u->stmts[k]->t0 &&
				    a->e->t0 < u->stmts[k]->t1)
					inside = 1; /* the statement goes as a whole */
			if (inside)
				continue;
			if (u->groups[a->group].stride == 2)
				astra_syn_edit_owned(&e, astra_syn_off(c->syn, a->e->t0), astra_syn_end(c->syn, a->e->t1 - 1),
						      xasprintf("%s_v%d[2 * %s + %d]", c->pfx, a->group, elem_k, a->lane));
			else if (u->groups[a->group].reg)
				astra_syn_edit_owned(&e, astra_syn_off(c->syn, a->e->t0), astra_syn_end(c->syn, a->e->t1 - 1),
						      xasprintf("%s[%s]", u->groups[a->group].reg, elem_k));
			else
				astra_syn_edit_owned(&e, astra_syn_off(c->syn, a->e->t0), astra_syn_end(c->syn, a->e->t1 - 1),
						      xasprintf("%s_v%d[%s]", c->pfx, a->group, elem_k));
		}
	}
	if (taken) {
		struct divs d = { c, &e, i0, elem_k, taken, bt0 };
		for (i = 0; i < u->nr_stmts; i++)
			if (!(u->hoist[i] == 2 || (u->hoist[i] == 1 && !keep_hoisted)))
				astra_facts_each_part(&c->f, u->stmts[i], div_part, &d);
		free(taken);
	}
	r = astra_syn_apply(c->rk->text, u->body_off, u->body_end, &e, out);
	astra_syn_edits_release(&e);
	return r;
}

static int body_text2(struct ck *c, const char *elem_k, struct astra_buf *out, int vector, int keep_hoisted)
{
	return body_text3(c, elem_k, NULL, out, vector, keep_hoisted);
}

static int body_text(struct ck *c, const char *elem_k, struct astra_buf *out, int vector)
{
	return body_text2(c, elem_k, out, vector, 0);
}

static void indent(struct astra_buf *b, int n)
{
	while (n-- > 0)
		astra_buf_addch(b, '\t');
}

/* Width (tabs count 8) of the whitespace in front of byte off's line. */
static int width_before(const char *text, size_t off)
{
	size_t ls = off;
	int w = 0;
	while (ls > 0 && text[ls - 1] != '\n')
		ls--;
	for (; ls < off && (text[ls] == ' ' || text[ls] == '\t'); ls++)
		w = text[ls] == '\t' ? (w / 8 + 1) * 8 : w + 1;
	return w;
}

/*
 * Append BODY's text (which began at byte body_off of the kernel) indented
 * by ind tabs: a braced block loses its braces (it is the body of the loop
 * the rewrite puts around it), blank lines go, relative indentation stays.
 */
static void add_body(struct ck *c, const char *text, int ind, struct astra_buf *b)
{
	const char *p = text, *end = text + strlen(text);
	int first_w = width_before(c->rk->text, c->u->body_off), minw = 1 << 20, pass;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
		end--;
	if (p < end && *p == '{' && end[-1] == '}' && !c->u->multi) {
		/* is the opening brace matched by the last one? */
		int depth = 0;
		const char *q;
		for (q = p; q < end; q++) {
			if (*q == '{')
				depth++;
			else if (*q == '}' && --depth == 0)
				break;
		}
		if (q == end - 1) {
			p++;
			end--;
			first_w += 8;
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (p < end && *p == '\n')
				first_w = -1; /* the first line is blank: measure the others */
		}
	}
	for (pass = 0; pass < 2; pass++) {
		const char *l = p;
		int lineno = 0;
		while (l < end) {
			const char *e = memchr(l, '\n', (size_t)(end - l)), *q;
			int w = 0, blank = 1;
			if (!e)
				e = end;
			for (q = l; q < e && (*q == ' ' || *q == '\t'); q++)
				w = *q == '\t' ? (w / 8 + 1) * 8 : w + 1;
			for (const char *x = q; x < e; x++)
				if (*x != ' ' && *x != '\t' && *x != '\r')
					blank = 0;
			if (lineno == 0 && l == p && first_w >= 0)
				w = first_w;
			if (!blank) {
				if (pass == 0) {
					if (w < minw)
						minw = w;
				} else {
					int nw = ind * 8 + w - minw, k;
					for (k = 0; k < nw / 8; k++)
						astra_buf_addch(b, '\t');
					for (k = 0; k < nw % 8; k++)
						astra_buf_addch(b, ' ');
					astra_buf_add(b, q, (size_t)(e - q));
					astra_buf_addch(b, '\n');
				}
			}
			lineno++;
			l = e < end ? e + 1 : end;
		}
	}
}

/* Does text use the identifier name? */
static int text_mentions(const char *text, const char *name)
{
	struct astra_syn syn;
	int r;
	if (astra_syn_lex(&syn, text, strlen(text)) < 0)
		return 1;
	r = astra_syn_mentions(&syn, 0, syn.nr_toks, name);
	astra_syn_release(&syn);
	return r;
}

/*
 * The hoisted statements, the loop index replaced by i0.  A declaration
 * that neither `uses` (the code after them) nor a later kept statement
 * mentions is left out.
 */
static void hoisted_text(struct ck *c, const char *i0, int ind, const char *uses, size_t from, size_t to,
			 struct astra_buf *b)
{
	struct unit *u = c->u;
	size_t i, t;
	char *keep = xcalloc(u->nr_stmts + 1, 1);
	struct astra_buf later = ASTRA_BUF_INIT;
	astra_buf_adds(&later, uses);
	for (i = u->nr_stmts; i-- > 0;) {
		struct astra_stmt *st = u->stmts[i];
		struct astra_decl *d = NULL;
		size_t n, k;
		char *txt;
		if (u->hoist[i] != 1)
			continue;
		keep[i] = 1;
		if (st->kind == STMT_DECL && (n = astra_syn_decls(c->syn, st->a0, st->a1, &d)) > 0) {
			keep[i] = 0;
			for (k = 0; k < n; k++) {
				char *nm = astra_syn_tokstr(c->syn, d[k].name);
				if (text_mentions(later.buf, nm))
					keep[i] = 1;
				free(nm);
			}
		}
		free(d);
		if (keep[i]) {
			txt = astra_syn_text(c->syn, st->t0, st->t1);
			astra_buf_addf(&later, "\n%s", txt);
			free(txt);
		}
	}
	astra_buf_release(&later);
	for (i = from; i < to && i < u->nr_stmts; i++) {
		struct astra_syn_edits e = { NULL, 0, 0 };
		struct astra_stmt *st = u->stmts[i];
		if (u->hoist[i] != 1 || !keep[i])
			continue;
		for (t = st->t0; t < st->t1; t++)
			if (tok_is_var(c, t))
				astra_syn_edit_owned(&e, c->syn->toks[t].off, c->syn->toks[t].off + c->syn->toks[t].len,
						      xasprintf("(%s)", i0));
		indent(b, ind);
		astra_syn_apply(c->rk->text, astra_syn_off(c->syn, st->t0), astra_syn_end(c->syn, st->t1 - 1), &e, b);
		astra_buf_addch(b, '\n');
		astra_syn_edits_release(&e);
	}
	free(keep);
}

/*
 * How many of BODY's first statements the chunk's conditions (al: the
 * alignment and overlap checks, which name every vectorized address)
 * need: the hoisted statements from there on run after the vector loads,
 * so that the loads are not held back by what the statements compute
 * (loads of per-row values, exponentials), and their latencies overlap.
 * Hoisted statements are declarations with chunk-invariant initializers
 * and assignments to them: moving the later ones past the loads keeps
 * their order, and the loads read memory nothing in between writes.
 */
static size_t hoist_cut(struct ck *c, const char *al)
{
	struct unit *u = c->u;
	struct astra_buf later = ASTRA_BUF_INIT;
	size_t i, cut = 0;
	astra_buf_adds(&later, al);
	for (i = u->nr_stmts; i-- > 0;) {
		struct astra_stmt *st = u->stmts[i];
		struct astra_decl *d = NULL;
		size_t n, k;
		int needed = 0;
		if (u->hoist[i] != 1)
			continue;
		if (st->kind == STMT_DECL && (n = astra_syn_decls(c->syn, st->a0, st->a1, &d)) > 0) {
			for (k = 0; k < n && !needed; k++) {
				char *nm = astra_syn_tokstr(c->syn, d[k].name);
				needed = text_mentions(later.buf, nm);
				free(nm);
			}
		} else if (st->kind == STMT_EXPR && astra_syn_is_ident(c->syn, st->a0)) {
			char *nm = astra_syn_tokstr(c->syn, st->a0);
			needed = text_mentions(later.buf, nm);
			free(nm);
		} else {
			needed = 1;
		}
		free(d);
		if (needed) {
			char *txt = astra_syn_text(c->syn, st->t0, st->t1);
			astra_buf_addf(&later, "\n%s", txt);
			free(txt);
			if (!cut)
				cut = i + 1;
		}
	}
	astra_buf_release(&later);
	return cut;
}

/*
 * The vector path for the chunk at i0: loads, the hoisted statements
 * from cut on (their text in late), EPT unrolled bodies, stores.
 */
static int gen_vector(struct ck *c, const char *i0, int ind, const char *late, struct astra_buf *b)
{
	struct unit *u = c->u;
	int gi;
	char *k = xasprintf("%s_k", c->pfx);
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		char *by;
		if (!g->mode)
			continue;
		indent(b, ind);
		astra_buf_addf(b, "alignas(16) %s %s_v%d[%d];\n", g->elem, c->pfx, gi, c->ept * g->stride);
		if (g->mode == 'R' || g->mode == 'X') {
			char *a = addr(g, i0);
			by = bytes_expr(c, g);
			indent(b, ind);
			astra_buf_addf(b, "%s<%s>(%s_v%d, %s);\n", g->ldg ? ASTRA_HELPER("ldg") : ASTRA_HELPER("ld"), by,
				       c->pfx, gi, a);
			free(a);
			free(by);
		}
	}
	if (late)
		astra_buf_adds(b, late);
	{
		/* i0 >= 0 (a thread's chunk), so i0 % D + k is never 0 for k > 0: the
		 * compiler drops per-element work guarded by `i % D == 0` */
		struct astra_buf bt = ASTRA_BUF_INIT;
		struct astra_vec seen = ASTRA_VEC_INIT;
		size_t i;
		if (body_text3(c, k, i0, &bt, 1, 0) == 0)
			for (i = 0; i < u->divisors.nr; i++) {
				char *pat = xasprintf("((%s) %% (%s) + %s)", i0, u->divisors.v[i], k);
				if (astra_vec_find(&seen, u->divisors.v[i]) < 0 && strstr(bt.buf, pat)) {
					astra_vec_push(&seen, u->divisors.v[i]);
					indent(b, ind);
					astra_buf_addf(b, "__builtin_assume((%s) %% (%s) >= 0);\n", i0, u->divisors.v[i]);
				}
				free(pat);
			}
		astra_vec_clear(&seen);
		astra_buf_release(&bt);
	}
	indent(b, ind);
	astra_buf_adds(b, "#pragma unroll\n");
	indent(b, ind);
	astra_buf_addf(b, "for (int %s = 0; %s < %d; ++%s) {\n", k, k, c->ept, k);
	{
		struct astra_buf bt = ASTRA_BUF_INIT;
		if (u->prologue)
			astra_buf_addf(&bt, "%s\n", u->prologue);
		if (body_text3(c, k, i0, &bt, 1, 0) < 0) {
			astra_buf_release(&bt);
			free(k);
			return -1;
		}
		if (text_mentions(bt.buf, u->var)) {
			indent(b, ind + 1);
			astra_buf_addf(b, "%s %s = %s + %s;\n", u->var_type, u->var, i0, k);
		}
		add_body(c, bt.buf, ind + 1, b);
		astra_buf_release(&bt);
	}
	indent(b, ind);
	astra_buf_adds(b, "}\n");
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		if (g->mode == 'W' || g->mode == 'X') {
			char *a = addr(g, i0), *by = bytes_expr(c, g);
			indent(b, ind);
			astra_buf_addf(b, "%s<%s>(%s, %s_v%d);\n", ASTRA_HELPER("st"), by, a, c->pfx, gi);
			free(a);
			free(by);
		}
	}
	free(k);
	return 0;
}

/*
 * The element-by-element path for the chunk at i0: the original body, for
 * each of the chunk's elements below the limit.  The loop has a constant
 * trip count and is unrolled, so a thread's loads of its elements are in
 * flight together: this path runs at small or odd sizes (a row length
 * that is not a multiple of the vector width), where the original had one
 * element per thread, and a loop whose loads waited for each other made
 * variants slower there than the original (seen on an H200: 5.3 us instead
 * of 4.3 us for silu_and_mul at tokens=3, d=1001).
 */
static int gen_scalar(struct ck *c, const char *i0, int ind, struct astra_buf *b)
{
	struct unit *u = c->u;
	indent(b, ind);
	astra_buf_adds(b, "#pragma unroll\n");
	indent(b, ind);
	astra_buf_addf(b, "for (int %s_s = 0; %s_s < %d; ++%s_s) {\n", c->pfx, c->pfx, c->ept, c->pfx);
	indent(b, ind + 1);
	astra_buf_addf(b, "%s %s = %s + %s_s;\n", u->var_type, u->var, i0, c->pfx);
	indent(b, ind + 1);
	astra_buf_addf(b, "if (%s < (%s)) {\n", u->var, u->limit);
	if (u->prologue) {
		indent(b, ind + 2);
		astra_buf_addf(b, "%s\n", u->prologue);
	}
	{
		struct astra_buf bt = ASTRA_BUF_INIT;
		if (body_text(c, NULL, &bt, 0) < 0) {
			astra_buf_release(&bt);
			return -1;
		}
		add_body(c, bt.buf, ind + 2, b);
		astra_buf_release(&bt);
	}
	indent(b, ind + 1);
	astra_buf_adds(b, "}\n");
	indent(b, ind);
	astra_buf_adds(b, "}\n");
	return 0;
}

/*
 * One chunk at i0 (known to start below the limit):
 *   if (whole chunk in one row) { hoisted; if (aligned) vector; else scalar; } else scalar;
 */
static int gen_chunk(struct ck *c, const char *i0, int ind, struct astra_buf *b)
{
	struct astra_buf full = ASTRA_BUF_INIT, al = ASTRA_BUF_INIT;
	int r;
	struct astra_buf vec = ASTRA_BUF_INIT, sca = ASTRA_BUF_INIT, late = ASTRA_BUF_INIT;
	size_t cut;
	full_cond(c, i0, &full);
	align_cond(c, i0, &al);
	cut = hoist_cut(c, al.buf);
	r = gen_vector(c, i0, ind + 2, NULL, &vec);
	if (!r && cut < c->u->nr_stmts) {
		/* what the hoisted values are used by: the vector path (the scalar one redeclares them) */
		char *uses = xasprintf("%s\n%s", al.buf, vec.buf);
		hoisted_text(c, i0, ind + 2, uses, cut, c->u->nr_stmts, &late);
		free(uses);
		if (late.len) {
			astra_buf_reset(&vec);
			r = gen_vector(c, i0, ind + 2, late.buf, &vec);
		}
	}
	if (!r)
		r = gen_scalar(c, i0, ind + 2, &sca);
	indent(b, ind);
	astra_buf_addf(b, "if (%s) {\n", full.buf);
	{
		char *uses = xasprintf("%s\n%s", al.buf, vec.buf);
		hoisted_text(c, i0, ind + 1, uses, 0, cut, b);
		free(uses);
	}
	astra_buf_release(&late);
	indent(b, ind + 1);
	astra_buf_addf(b, "if (%s) {\n", al.buf);
	astra_buf_adds(b, vec.buf);
	indent(b, ind + 1);
	astra_buf_adds(b, "} else {\n");
	astra_buf_adds(b, sca.buf);
	astra_buf_release(&vec);
	astra_buf_release(&sca);
	indent(b, ind + 1);
	astra_buf_adds(b, "}\n");
	indent(b, ind);
	astra_buf_adds(b, "} else {\n");
	if (!r)
		r = gen_scalar(c, i0, ind + 1, b);
	indent(b, ind);
	astra_buf_adds(b, "}\n");
	astra_buf_release(&full);
	astra_buf_release(&al);
	return r;
}

/* Indentation (in tabs; 8 spaces count as one) of the line holding off. */
static int line_indent(struct ck *c, size_t off)
{
	const char *t = c->rk->text;
	size_t ls = off, spaces = 0;
	int tabs = 0;
	while (ls > 0 && t[ls - 1] != '\n')
		ls--;
	for (; ls < off && (t[ls] == '\t' || t[ls] == ' '); ls++) {
		if (t[ls] == '\t')
			tabs++;
		else
			spaces++;
	}
	return tabs + (int)(spaces / 8);
}

/* The replacement of a distributed loop. */
static int gen_loop(struct ck *c, struct astra_buf *b)
{
	struct unit *u = c->u;
	int ind = line_indent(c, astra_syn_off(c->syn, u->stmt->t0));
	char *i0 = xasprintf("%s_i0", c->pfx);
	int r;

	astra_buf_addf(b, "for (%s %s = (%s) * %d; %s < (%s); %s += (%s) * %d) {\n", u->var_type, i0, u->start,
		       c->ept, i0, u->limit, i0, u->stride, c->ept);
	r = gen_chunk(c, i0, ind + 1, b);
	indent(b, ind);
	astra_buf_adds(b, "}");
	free(i0);
	return r;
}

/* ------------------------------------------------------------- loops */

static void unit_release(struct unit *u)
{
	int i;
	for (i = 0; i < u->nr_groups; i++) {
		free(u->groups[i].base);
		free(u->groups[i].index);
		free(u->groups[i].key);
		free(u->groups[i].elem);
		free(u->groups[i].reg);
	}
	for (i = 0; i < u->nr_fake; i++) {
		free(u->fake[i].name);
		free(u->fake[i].elem_type);
		free(u->fake[i].type);
	}
	free(u->acc);
	free(u->var);
	free(u->var_type);
	free(u->start);
	free(u->limit);
	free(u->stride);
	free(u->prologue);
	free(u->stmts);
	free(u->hoist);
	astra_vec_clear(&u->hnames);
	astra_vec_clear(&u->divisors);
	memset(u, 0, sizeof(*u));
}

/* The declared type of a local, without const (the loop index is assigned). */
static char *var_type_text(struct ck *c, const struct astra_decl *d)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	for (i = d->ty0; i < d->ty1; i++) {
		if (astra_syn_is(c->syn, i, "const") || astra_syn_is(c->syn, i, "constexpr"))
			continue;
		if (b.len)
			astra_buf_addch(&b, ' ');
		astra_buf_add(&b, c->syn->text + c->syn->toks[i].off, c->syn->toks[i].len);
	}
	return astra_buf_detach(&b, NULL);
}

/*
 * Is s a distributed loop `for (T v = START; v < LIMIT; v += STRIDE)` with
 * a matching START/STRIDE pair?  Fills u; returns 1, or 0 (not one).
 */
static int loop_header(struct ck *c, struct astra_stmt *s, struct unit *u)
{
	const struct astra_syn *syn = c->syn;
	struct astra_decl *d = NULL;
	struct astra_expr *start, *stride;
	enum astra_tix ts, tr;
	size_t nd, eq;
	char *var;

	if (s->kind != STMT_FOR || !astra_syn_looks_like_decl(syn, s->a0, s->a1))
		return 0;
	nd = astra_syn_decls(syn, s->a0, s->a1, &d);
	if (nd != 1 || d[0].init1 <= d[0].init0 || d[0].ptr1 != d[0].ptr0 || d[0].is_array) {
		free(d);
		return 0;
	}
	var = astra_syn_tokstr(syn, d[0].name);
	start = astra_syn_expr(c->syn, d[0].init0, d[0].init1);
	/* cond: v < LIMIT */
	if (!(s->b1 > s->b0 + 2 && astra_syn_is(syn, s->b0, var) && astra_syn_is(syn, s->b0 + 1, "<")) ||
	    astra_syn_mentions(syn, s->b0 + 2, s->b1, var)) {
		free(var);
		free(d);
		return 0;
	}
	/* incr: v += STRIDE */
	eq = s->c0 + 1;
	if (!(s->c1 > s->c0 + 2 && astra_syn_is(syn, s->c0, var) && astra_syn_is(syn, eq, "+="))) {
		free(var);
		free(d);
		return 0;
	}
	stride = astra_syn_expr(c->syn, eq + 1, s->c1);
	ts = astra_facts_tix(&c->f, start);
	tr = astra_facts_tix(&c->f, stride);
	if (!((ts == TIX_TID && tr == TIX_BDIM) || (ts == TIX_GTID && tr == TIX_GSTRIDE) ||
	      (ts == TIX_LANE && tr == TIX_WARP))) {
		free(var);
		free(d);
		return 0;
	}
	memset(u, 0, sizeof(*u));
	u->stmt = s;
	u->body = s->kids[0];
	u->body_off = astra_syn_off(syn, u->body->t0);
	u->body_end = astra_syn_end(syn, u->body->t1 - 1);
	u->var = var;
	u->var_type = var_type_text(c, &d[0]);
	u->start = astra_syn_text(syn, d[0].init0, d[0].init1);
	u->limit = astra_syn_text(syn, s->b0 + 2, s->b1);
	u->stride = astra_syn_text(syn, eq + 1, s->c1);
	u->lane_loop = ts == TIX_LANE;
	free(d);
	return 1;
}

struct loops {
	struct ck *c;
	struct astra_stmt **v;
	size_t nr, alloc;
};

static int find_loops(struct astra_stmt *s, void *data)
{
	struct loops *l = data;
	struct unit u;
	if (s->kind == STMT_FOR && loop_header(l->c, s, &u)) {
		unit_release(&u);
		ALLOC_GROW(l->v, l->nr + 1, l->alloc);
		l->v[l->nr++] = s;
	}
	return 0;
}

/* The widest element (bytes, of the narrowest instantiation) among vectorized groups. */
static int widest(struct ck *c, int *unknown)
{
	struct unit *u = c->u;
	int gi, w = 0;
	for (gi = 0; gi < u->nr_groups; gi++) {
		int mn, mx;
		if (!u->groups[gi].mode)
			continue;
		if (astra_rk_type_size(c->rk, u->groups[gi].elem, &mn, &mx) < 0) {
			*unknown = 1;
			astra_buf_addf(c->why, "the size of %s is unknown (no types() for it)", u->groups[gi].elem);
			return 0;
		}
		if (mn > w)
			w = mn;
	}
	return w;
}

static int choose_ept(struct ck *c)
{
	int unknown = 0, w = widest(c, &unknown);
	if (unknown)
		return -1;
	if (c->o->ept)
		return c->o->ept;
	if (!w)
		return 0;
	if (w >= 16) {
		astra_buf_adds(c->why, "the elements are 16 bytes wide already");
		return -1;
	}
	return 16 / w;
}

static char *pick_prefix(const char *text)
{
	int n;
	for (n = 0;; n++) {
		char *p = xasprintf("astra_c%d", n);
		if (!strstr(text, p))
			return p;
		free(p);
	}
}

/* ------------------------------------------------------- register cache */

/*
 * Move group g's chunk at i0 between memory and reg (store: reg to memory):
 * a vector access when vec, else element by element.
 */
static void gen_chunk_move(struct ck *c, struct group *g, const char *reg, const char *i0, const char *vec,
			   const char *k, int ind, int store, struct astra_buf *b)
{
	char *a = addr(g, i0);
	indent(b, ind);
	astra_buf_addf(b, "if (%s) {\n", vec);
	indent(b, ind + 1);
	if (store)
		astra_buf_addf(b, "%s<%d * (int)sizeof(%s)>(%s, %s);\n", ASTRA_HELPER("st"), c->ept, g->elem, a, reg);
	else
		astra_buf_addf(b, "%s<%d * (int)sizeof(%s)>(%s, %s);\n",
			       g->ldg ? ASTRA_HELPER("ldg") : ASTRA_HELPER("ld"), c->ept, g->elem, reg, a);
	indent(b, ind);
	astra_buf_adds(b, "} else {\n");
	indent(b, ind + 1);
	astra_buf_adds(b, "#pragma unroll\n");
	indent(b, ind + 1);
	astra_buf_addf(b, "for (int %s = 0; %s < %d; ++%s)\n", k, k, c->ept, k);
	indent(b, ind + 2);
	astra_buf_addf(b, "if (%s + %s < (%s))\n", i0, k, c->u->limit);
	indent(b, ind + 3);
	if (store)
		astra_buf_addf(b, "(%s)[%s] = %s[%s];\n", a, k, reg, k);
	else
		astra_buf_addf(b, "%s[%s] = (%s)[%s];\n", reg, k, a, k);
	indent(b, ind);
	astra_buf_adds(b, "}\n");
	free(a);
}

/* " && al(addr, bytes)" for group g's chunk at i0, appended to al. */
static void add_align_test(struct ck *c, struct group *g, const char *i0, struct astra_buf *al)
{
	char *a = addr(g, i0), *by = bytes_expr(c, g);
	astra_buf_addf(al, " &&\n\t\t    %s(%s, (%s) < 16 ? (%s) : 16)", ASTRA_HELPER("al"), a, by, by);
	free(a);
	free(by);
}

/* Does the loop read group g into the row cache here, for the first time? */
static int fills_cache(const struct group *g)
{
	return (g->mode == 'R' || g->mode == 'X') && g->cached >= 0 && g->first;
}

/*
 * The cached form of the loop c->u: C chunks per thread, unrolled, so the
 * register arrays of cached data stay in registers from one loop to the
 * next.  Every element runs the body once from registers; vector or scalar
 * accesses fill and drain them depending on alignment and the row's end.
 */
static int gen_cached(struct ck *c, int cache, int ind, struct astra_buf *b)
{
	struct unit *u = c->u;
	struct astra_buf al = ASTRA_BUF_INIT, bt = ASTRA_BUF_INIT, fal = ASTRA_BUF_INIT;
	char *cc = xasprintf("%s_cc", c->pfx), *i0 = xasprintf("%s_i0", c->pfx), *k = xasprintf("%s_k", c->pfx);
	char *vec = xasprintf("%s_vec", c->pfx), *fvec = xasprintf("%s_fvec", c->pfx);
	int gi, r = 0, any_align = 0, fills = 0;

	/*
	 * The chunks that fill the cache are loaded in a pass of their own,
	 * before any of them is used: the loads of all the chunks are then in
	 * flight together, where a pass that loads a chunk and uses it before
	 * loading the next waits for memory once per chunk.
	 */
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		if (!fills_cache(g))
			continue;
		add_align_test(c, g, i0, &fal);
		fills = 1;
	}
	if (fills) {
		indent(b, ind);
		astra_buf_adds(b, "#pragma unroll\n");
		indent(b, ind);
		astra_buf_addf(b, "for (int %s = 0; %s < %d; ++%s) {\n", cc, cc, cache, cc);
		indent(b, ind + 1);
		astra_buf_addf(b, "const %s %s = (%s) * %d + %s * (%s) * %d;\n", u->var_type, i0, u->start, c->ept, cc,
			       u->stride, c->ept);
		indent(b, ind + 1);
		astra_buf_addf(b, "if (%s < (%s)) {\n", i0, u->limit);
		indent(b, ind + 2);
		astra_buf_addf(b, "const bool %s = %s + %d <= (%s)%s;\n", fvec, i0, c->ept, u->limit, fal.buf);
		for (gi = 0; gi < u->nr_groups; gi++) {
			struct group *g = &u->groups[gi];
			char *reg;
			if (!fills_cache(g))
				continue;
			reg = xasprintf("%s_rc%d[%s]", c->pfx, g->cached, cc);
			gen_chunk_move(c, g, reg, i0, fvec, k, ind + 2, 0, b);
			free(reg);
		}
		indent(b, ind + 1);
		astra_buf_adds(b, "}\n");
		indent(b, ind);
		astra_buf_adds(b, "}\n");
	}

	indent(b, ind);
	astra_buf_adds(b, "#pragma unroll\n");
	indent(b, ind);
	astra_buf_addf(b, "for (int %s = 0; %s < %d; ++%s) {\n", cc, cc, cache, cc);
	indent(b, ind + 1);
	astra_buf_addf(b, "const %s %s = (%s) * %d + %s * (%s) * %d;\n", u->var_type, i0, u->start, c->ept, cc, u->stride,
		       c->ept);
	indent(b, ind + 1);
	astra_buf_addf(b, "if (%s < (%s)) {\n", i0, u->limit);
	/* alignment of what this pass moves through memory */
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		if (!g->mode || (g->cached >= 0 && g->mode == 'R'))
			continue;
		add_align_test(c, g, i0, &al);
		any_align = 1;
	}
	{
		int moves = 0;
		for (gi = 0; gi < u->nr_groups; gi++) {
			struct group *g = &u->groups[gi];
			if (g->mode == 'W' || g->mode == 'X' || (g->mode == 'R' && g->cached < 0))
				moves = 1;
		}
		if (moves) {
			indent(b, ind + 2);
			astra_buf_addf(b, "const bool %s = %s + %d <= (%s)%s;\n", vec, i0, c->ept, u->limit,
				       any_align ? al.buf : "");
		}
	}
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		if (!g->mode)
			continue;
		if (g->cached >= 0) {
			free(g->reg);
			g->reg = xasprintf("%s_rc%d[%s]", c->pfx, g->cached, cc);
		} else {
			indent(b, ind + 2);
			astra_buf_addf(b, "alignas(16) %s %s_v%d[%d];\n", g->elem, c->pfx, gi, c->ept);
			g->reg = xasprintf("%s_v%d", c->pfx, gi);
		}
		if (!(g->mode == 'R' || g->mode == 'X') || g->cached >= 0)
			continue;
		gen_chunk_move(c, g, g->reg, i0, vec, k, ind + 2, 0, b);
	}
	indent(b, ind + 2);
	astra_buf_adds(b, "#pragma unroll\n");
	indent(b, ind + 2);
	astra_buf_addf(b, "for (int %s = 0; %s < %d; ++%s) {\n", k, k, c->ept, k);
	indent(b, ind + 3);
	astra_buf_addf(b, "if (%s + %s < (%s)) {\n", i0, k, u->limit);
	if (body_text2(c, k, &bt, 1, 1) < 0)
		r = -1;
	if (text_mentions(bt.buf, u->var)) {
		indent(b, ind + 4);
		astra_buf_addf(b, "%s %s = %s + %s;\n", u->var_type, u->var, i0, k);
	}
	add_body(c, bt.buf, ind + 4, b);
	indent(b, ind + 3);
	astra_buf_adds(b, "}\n");
	indent(b, ind + 2);
	astra_buf_adds(b, "}\n");
	for (gi = 0; gi < u->nr_groups; gi++) {
		struct group *g = &u->groups[gi];
		if (g->mode == 'W' || g->mode == 'X')
			gen_chunk_move(c, g, g->reg, i0, vec, k, ind + 2, 1, b);
	}
	indent(b, ind + 1);
	astra_buf_adds(b, "}\n");
	indent(b, ind);
	astra_buf_adds(b, "}\n");
	for (gi = 0; gi < u->nr_groups; gi++) {
		free(u->groups[gi].reg);
		u->groups[gi].reg = NULL;
	}
	astra_buf_release(&al);
	astra_buf_release(&fal);
	astra_buf_release(&bt);
	free(cc);
	free(i0);
	free(k);
	free(vec);
	free(fvec);
	return r;
}

/* Does the kernel write param p outside the loops in v (statements not inside any of them)? */
struct outside {
	struct ck *c;
	struct astra_stmt **loops;
	size_t nr;
	const struct astra_param *p;
	int written;
};

static int outside_expr(struct astra_expr *e, void *data)
{
	struct outside *o = data;
	struct astra_expr *lhs = NULL;
	char *off = NULL;
	const struct astra_param *p;
	if (e->kind == EX_ASSIGN || e->kind == EX_POSTFIX ||
	    (e->kind == EX_UNARY && (astra_syn_is(o->c->syn, e->op, "++") || astra_syn_is(o->c->syn, e->op, "--"))))
		lhs = e->a;
	while (lhs && (lhs->kind == EX_PAREN || lhs->kind == EX_MEMBER))
		lhs = lhs->a;
	if (!lhs || lhs->kind != EX_INDEX)
		return 0;
	if (lhs->a->kind != EX_IDENT) {
		o->written = 1;
		return 0;
	}
	p = astra_facts_pointer(&o->c->f, o->c->syn->text + o->c->syn->toks[lhs->a->t0].off,
				o->c->syn->toks[lhs->a->t0].len, &off);
	free(off);
	if (!p) {
		const struct astra_local *l = astra_facts_local_tok(&o->c->f, lhs->a->t0);
		if (!l || !l->d.is_array)
			o->written = 1;
	} else if (p == o->p) {
		o->written = 1;
	}
	return 0;
}

static int outside_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e,
			void *data)
{
	struct outside *o = data;
	size_t i;
	(void)f;
	(void)t1;
	for (i = 0; i < o->nr; i++)
		if (t0 >= o->loops[i]->t0 && t0 < o->loops[i]->t1)
			return 0;
	(void)s;
	if (!e)
		o->written = 1;
	else
		astra_expr_walk(e, outside_expr, o);
	return 0;
}

/*
 * Cache mode: among the loops spread over threads, those with one header
 * in one block that read the same data keep that data in registers.
 */
static int apply_cache(struct ck *c, struct astra_stmt **loops, size_t nr)
{
	struct unit *units = xcalloc(nr, sizeof(*units));
	struct astra_buf *caller_why = c->why, why = ASTRA_BUF_INIT;
	struct astra_syn_edits edits = { NULL, 0, 0 };
	char **slot_key = NULL, **slot_elem = NULL;
	const struct astra_param **slot_param = NULL;
	size_t i, j, nslots = 0, first = (size_t)-1, n_in = 0;
	int *in = xcalloc(nr, sizeof(int));
	int ept = 0, r = 0, cache = c->o->cache;
	long long maxlim;

	for (i = 0; i < nr; i++) {
		loop_header(c, loops[i], &units[i]);
		c->u = &units[i];
		c->why = &why;
		c->fail = 0;
		if (analyse(c) == 0 && units[i].vectorized && !units[i].divisors.nr) {
			int e = choose_ept(c), gq;
			in[i] = e > 1;
			for (gq = 0; gq < units[i].nr_groups; gq++)
				if (units[i].groups[gq].mode && units[i].groups[gq].stride != 1)
					in[i] = 0;
			if (e > ept)
				ept = e;
		}
	}
	c->ept = ept;
	/* the first loop of the most common header that shares a read with another */
	for (i = 0; i < nr && first == (size_t)-1; i++) {
		int gi;
		if (!in[i])
			continue;
		for (gi = 0; gi < units[i].nr_groups && first == (size_t)-1; gi++) {
			struct group *g = &units[i].groups[gi];
			if (g->mode != 'R' && g->mode != 'X')
				continue;
			for (j = i + 1; j < nr; j++) {
				int gj;
				if (!in[j] || loops[j]->parent != loops[i]->parent || strcmp(units[j].start, units[i].start) ||
				    strcmp(units[j].limit, units[i].limit) || strcmp(units[j].stride, units[i].stride))
					continue;
				for (gj = 0; gj < units[j].nr_groups; gj++)
					if (units[j].groups[gj].mode && !strcmp(units[j].groups[gj].key, g->key))
						first = i;
			}
		}
	}
	if (first == (size_t)-1) {
		astra_buf_addf(caller_why, "no two loops over the same range read the same data through vector accesses%s%s",
			       why.len ? " (" : "", why.len ? why.buf : "");
		if (why.len)
			astra_buf_addch(caller_why, ')');
		goto out;
	}
	for (i = 0; i < nr; i++)
		if (i != first && !(in[i] && loops[i]->parent == loops[first]->parent &&
				     !strcmp(units[i].start, units[first].start) && !strcmp(units[i].limit, units[first].limit) &&
				     !strcmp(units[i].stride, units[first].stride) && i > first))
			in[i] = 0;
	/* the slots: data read in two of the loops and written nowhere else */
	for (i = first; i < nr; i++) {
		int gi;
		if (!in[i])
			continue;
		n_in++;
		for (gi = 0; gi < units[i].nr_groups; gi++) {
			struct group *g = &units[i].groups[gi];
			size_t s, uses = 0;
			int ok = 1;
			struct outside o;
			if (g->mode != 'R' && g->mode != 'X')
				continue;
			for (s = 0; s < nslots; s++)
				if (!strcmp(slot_key[s], g->key))
					break;
			if (s < nslots)
				continue;
			for (j = first; j < nr; j++) {
				int gj;
				if (!in[j])
					continue;
				for (gj = 0; gj < units[j].nr_groups; gj++) {
					struct group *h = &units[j].groups[gj];
					if (h->param != g->param)
						continue;
					if (!strcmp(h->key, g->key) && h->mode)
						uses++;
					else if (h->writes)
						ok = 0; /* other parts of the buffer change */
				}
			}
			memset(&o, 0, sizeof(o));
			o.c = c;
			o.loops = loops;
			o.nr = nr;
			o.p = g->param;
			astra_facts_each_part(&c->f, c->syn->body, outside_part, &o);
			if (o.written || uses < 2 || !ok || units[i].unresolved_writes)
				continue;
			slot_key = xrealloc(slot_key, (nslots + 1) * sizeof(*slot_key));
			slot_elem = xrealloc(slot_elem, (nslots + 1) * sizeof(*slot_elem));
			slot_param = xrealloc(slot_param, (nslots + 1) * sizeof(*slot_param));
			slot_key[nslots] = xstrdup(g->key);
			slot_elem[nslots] = xstrdup(g->elem);
			slot_param[nslots] = g->param;
			nslots++;
		}
	}
	if (!nslots || n_in < 2) {
		astra_buf_adds(caller_why, "the data several loops read is written elsewhere in the kernel");
		goto out;
	}
	/*
	 * Chunks per thread: enough for the row of the shape with the most
	 * data, at most 64 elements per slot.  Sized for the longest row of
	 * any shape instead, a short-batch shape with long rows (64 rows of
	 * 32000) would reserve registers that the large shape pays for in
	 * occupancy; longer rows take the streaming loops.
	 */
	if (cache <= 0) {
		long blk = strstr(units[first].stride, "32") ? 32 : astra_rk_block_at_largest(c->rk);
		maxlim = astra_rk_at_largest_shape(c->rk, units[first].limit);
		if (maxlim <= 0)
			maxlim = astra_rk_max_over_shapes(c->rk, units[first].limit);
		cache = 8;
		if (maxlim > 0 && blk > 0)
			cache = (int)((maxlim + blk * ept - 1) / (blk * ept));
		if (cache < 1)
			cache = 1;
		while (cache * ept > 64)
			cache--;
	}
	/* generate */
	for (i = 0; i < nr; i++) {
		struct astra_buf b = ASTRA_BUF_INIT;
		size_t s;
		int ind = line_indent(c, astra_syn_off(c->syn, loops[i]->t0));
		c->u = &units[i];
		c->why = &why;
		if (!units[i].vectorized || ept <= 1) {
			unit_release(&units[i]);
			continue;
		}
		if (!in[i]) {
			if (gen_loop(c, &b) == 0)
				astra_syn_edit_owned(&edits, astra_syn_off(c->syn, loops[i]->t0),
						      astra_syn_end(c->syn, loops[i]->t1 - 1), astra_buf_detach(&b, NULL));
			astra_buf_release(&b);
			continue;
		}
		for (j = 0; j < (size_t)units[i].nr_groups; j++) {
			struct group *g = &units[i].groups[j];
			g->cached = -1;
			for (s = 0; s < nslots; s++)
				if (g->mode && !strcmp(slot_key[s], g->key)) {
					size_t f2;
					g->cached = (int)s;
					g->first = 1;
					for (f2 = first; f2 < i; f2++) {
						int gk;
						if (!in[f2])
							continue;
						for (gk = 0; gk < units[f2].nr_groups; gk++)
							if (units[f2].groups[gk].mode && !strcmp(units[f2].groups[gk].key, g->key))
								g->first = 0;
					}
				}
		}
		astra_buf_addf(&b, "if (%s_fit) {\n", c->pfx);
		r = gen_cached(c, cache, ind + 1, &b);
		indent(&b, ind);
		astra_buf_adds(&b, "} else {\n");
		for (j = 0; j < (size_t)units[i].nr_groups; j++)
			units[i].groups[j].cached = -1;
		indent(&b, ind + 1);
		if (!r)
			r = gen_loop(c, &b);
		astra_buf_addch(&b, '\n');
		indent(&b, ind);
		astra_buf_adds(&b, "}");
		if (i == first) {
			struct astra_buf d = ASTRA_BUF_INIT;
			astra_buf_addf(&d, "const bool %s_fit = (%s) <= %d * (%s) * %d;\n", c->pfx, units[i].limit, cache,
				       units[i].stride, ept);
			for (s = 0; s < nslots; s++) {
				indent(&d, ind);
				astra_buf_addf(&d, "alignas(16) %s %s_rc%zu[%d][%d];\n", slot_elem[s], c->pfx, s, cache, ept);
			}
			indent(&d, ind);
			astra_buf_add(&d, b.buf, b.len);
			astra_buf_release(&b);
			b = d;
		}
		astra_syn_edit_owned(&edits, astra_syn_off(c->syn, loops[i]->t0), astra_syn_end(c->syn, loops[i]->t1 - 1),
				      astra_buf_detach(&b, NULL));
		if (r < 0)
			break;
	}
	if (r < 0 || astra_rk_edit(c->rk, &edits) < 0) {
		r = -1;
		goto out;
	}
	c->rk->helpers |= HELPER_VEC;
	r = 1;
out:
	for (i = 0; i < nr; i++)
		unit_release(&units[i]);
	for (i = 0; i < nslots; i++) {
		free(slot_key[i]);
		free(slot_elem[i]);
	}
	free(slot_key);
	free(slot_elem);
	free(slot_param);
	free(units);
	free(in);
	astra_syn_edits_release(&edits);
	astra_buf_release(&why);
	c->why = caller_why;
	c->u = NULL;
	return r;
}

static int apply_loops(struct ck *c)
{
	struct loops l = { c, NULL, 0, 0 };
	struct astra_syn_edits edits = { NULL, 0, 0 };
	struct astra_buf reasons = ASTRA_BUF_INIT, *caller_why = c->why;
	size_t i;
	int done = 0, ept = 0;

	astra_syn_walk(c->syn->body, find_loops, &l);
	if (!l.nr) {
		astra_buf_adds(c->why, "no loop spread over threads (for (i = threadIdx.x; i < n; i += blockDim.x), "
				       "a grid-stride loop, or a lane loop) to vectorize");
		return 0;
	}
	if (c->o->cache) {
		int r = apply_cache(c, l.v, l.nr);
		free(l.v);
		return r;
	}
	/* one EPT for the whole kernel: the widest element decides */
	for (i = 0; i < l.nr; i++) {
		struct unit u;
		struct astra_buf why = ASTRA_BUF_INIT;
		int e;
		loop_header(c, l.v[i], &u);
		c->u = &u;
		c->why = &why;
		c->fail = 0;
		if (analyse(c) == 0 && u.vectorized) {
			e = choose_ept(c);
			if (e > ept)
				ept = e;
		}
		unit_release(&u);
		astra_buf_release(&why);
	}
	c->ept = ept;
	for (i = 0; i < l.nr; i++) {
		struct unit u;
		struct astra_buf why = ASTRA_BUF_INIT;
		struct astra_buf b = ASTRA_BUF_INIT;
		loop_header(c, l.v[i], &u);
		c->u = &u;
		c->why = &why;
		c->fail = 0;
		if (analyse(c) < 0 || !u.vectorized || ept <= 1) {
			char *h = astra_syn_text(c->syn, l.v[i]->t0, l.v[i]->kids[0]->t0);
			astra_buf_addf(&reasons, "%s`%s`: %s", reasons.len ? "; " : "", h,
				       why.len ? why.buf : !u.vectorized ? "no access indexed by the loop index plus an invariant" :
						 "elements too wide");
			free(h);
		} else if (gen_loop(c, &b) == 0) {
			astra_syn_edit_owned(&edits, astra_syn_off(c->syn, l.v[i]->t0), astra_syn_end(c->syn, l.v[i]->t1 - 1),
					      astra_buf_detach(&b, NULL));
			done++;
		}
		astra_buf_release(&b);
		astra_buf_release(&why);
		unit_release(&u);
	}
	free(l.v);
	c->u = NULL;
	c->why = caller_why;
	if (!done) {
		astra_syn_edits_release(&edits);
		astra_buf_adds(caller_why, reasons.buf);
		astra_buf_release(&reasons);
		return 0;
	}
	astra_buf_release(&reasons);
	if (astra_rk_edit(c->rk, &edits) < 0) {
		astra_syn_edits_release(&edits);
		return -1;
	}
	astra_syn_edits_release(&edits);
	c->rk->helpers |= HELPER_VEC;
	return 1;
}

/* ------------------------------------------------------------- guard */

/* `v >= N` or `N <= v`: N's tokens; `v < N` / `N > v` likewise with *lt set. */
static int guard_cond(struct ck *c, struct astra_stmt *s, const char *var, size_t *n0, size_t *n1, int *lt)
{
	const struct astra_syn *syn = c->syn;
	if (s->a1 < s->a0 + 3)
		return 0;
	if (astra_syn_is(syn, s->a0, var) && (astra_syn_is(syn, s->a0 + 1, ">=") || astra_syn_is(syn, s->a0 + 1, "<"))) {
		*lt = astra_syn_is(syn, s->a0 + 1, "<");
		*n0 = s->a0 + 2;
		*n1 = s->a1;
	} else if (astra_syn_is(syn, s->a1 - 1, var) &&
		   (astra_syn_is(syn, s->a1 - 2, "<=") || astra_syn_is(syn, s->a1 - 2, ">"))) {
		*lt = astra_syn_is(syn, s->a1 - 2, ">");
		*n0 = s->a0;
		*n1 = s->a1 - 2;
	} else {
		return 0;
	}
	return !astra_syn_mentions(syn, *n0, *n1, var);
}

static int is_return(const struct astra_stmt *s)
{
	if (s->kind == STMT_BLOCK && s->nr_kids == 1)
		s = s->kids[0];
	return s->kind == STMT_RETURN && s->t1 == s->t0 + 2;
}

/*
 * Below this many chunks per block of the launch (about one wave of blocks
 * on a 132-SM H100), the variant runs one element per thread as the
 * original: too few threads keep too few loads in flight, and the H100
 * measured the chunked variants 0.5 us slower at 4096 elements.
 */
#define MIN_CHUNK_BLOCKS 128

/*
 * The condition under which the chunks' vector path can apply, on the
 * kernel's parameters only (so that the launch and the kernel agree on it):
 * the divisors of the index keep a chunk in one row, and the range fills a
 * wave of chunked blocks.  NULL when a divisor is not an expression of the
 * parameters.  n and block are parameter expressions; blk: block when a literal, else 0.
 */
static char *uniform_cond(struct ck *c, const char *n, long blk, const char *block)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	struct astra_vec seen = ASTRA_VEC_INIT;
	size_t i;
	for (i = 0; i < c->u->divisors.nr; i++) {
		const char *dv = c->u->divisors.v[i];
		char *d;
		if (astra_vec_find(&seen, dv) >= 0)
			continue;
		astra_vec_push(&seen, dv);
		d = strstr(dv, "@I0@") ? NULL : astra_facts_to_params(&c->f, dv);
		if (!d || !astra_rk_params_only(c->rk, d)) {
			free(d);
			astra_vec_clear(&seen);
			astra_buf_release(&b);
			return NULL;
		}
		astra_buf_addf(&b, "(%s) %% %d == 0 && ", d, c->ept);
		free(d);
	}
	astra_vec_clear(&seen);
	if (blk)
		astra_buf_addf(&b, "(%s) >= %ld", n, blk * c->ept * MIN_CHUNK_BLOCKS);
	else
		astra_buf_addf(&b, "(%s) >= (%s) * %d", n, block, c->ept * MIN_CHUNK_BLOCKS);
	/* the kernel tests it after its first statements: they must not change a parameter it reads */
	for (i = c->syn->body->t0; i < c->syn->body->t1; i++) {
		const struct astra_syn_tok *tk = &c->syn->toks[i];
		const struct astra_param *p;
		if (tk->kind != SYN_IDENT || !(p = astra_rk_param(c->rk, c->syn->text + tk->off, tk->len)))
			continue;
		if (text_mentions(b.buf, p->name) &&
		    astra_facts_assigned_in(&c->f, p->name, strlen(p->name), c->syn->body->t0, c->syn->body->t1)) {
			astra_buf_release(&b);
			return NULL;
		}
	}
	return astra_buf_detach(&b, NULL);
}

/* Append text (which began at byte off of the kernel) with one more tab on each line. */
static void add_indented(struct ck *c, size_t off, size_t end, int ind, struct astra_buf *b)
{
	const char *t = c->rk->text;
	indent(b, ind);
	while (off < end) {
		const char *e = memchr(t + off, '\n', end - off);
		size_t le = e ? (size_t)(e - t) : end;
		astra_buf_add(b, t + off, le - off);
		astra_buf_addch(b, '\n');
		off = le + 1;
		if (off < end && t[off] != '\n')
			astra_buf_addch(b, '\t');
	}
}

static int apply_guard(struct ck *c)
{
	struct astra_stmt *body = c->syn->body, *g = NULL;
	struct unit u;
	size_t vi, gi = 0, n0 = 0, n1 = 0;
	const struct astra_local *l = NULL;
	int lt = 0, ept, r = 0;
	long blk;
	char *nparams = NULL, *bparams = NULL;

	/* the index: a local set once to blockIdx.x * blockDim.x + threadIdx.x */
	for (vi = 0; vi < body->nr_kids; vi++) {
		struct astra_stmt *s = body->kids[vi];
		struct astra_decl *d = NULL;
		if (s->kind == STMT_DECL && astra_syn_decls(c->syn, s->a0, s->a1, &d) == 1 && d[0].init1 > d[0].init0) {
			struct astra_expr *init = astra_syn_expr(c->syn, d[0].init0, d[0].init1);
			if (init && astra_facts_tix(&c->f, init) == TIX_GTID) {
				l = astra_facts_local_tok(&c->f, d[0].name);
				free(d);
				break;
			}
		}
		free(d);
	}
	if (!l || l->nr_decls != 1 || l->assigned) {
		astra_buf_adds(c->why, "no `i = blockIdx.x * blockDim.x + threadIdx.x` index set once at the top of the kernel");
		return 0;
	}
	memset(&u, 0, sizeof(u));
	c->u = &u;
	u.var = xstrdup(l->name);
	/* the guard */
	for (gi = vi + 1; gi < body->nr_kids; gi++) {
		struct astra_stmt *s = body->kids[gi];
		if (s->kind == STMT_IF) {
			g = s;
			break;
		}
		if (s->kind != STMT_DECL || astra_syn_mentions(c->syn, s->t0, s->t1, u.var)) {
			astra_buf_adds(c->why, "statements between the index and its bounds check");
			goto out;
		}
	}
	if (!g || !guard_cond(c, g, u.var, &n0, &n1, &lt)) {
		astra_buf_addf(c->why, "no bounds check `if (%s >= N) return;` or `if (%s < N) { ... }` after the index", u.var,
			       u.var);
		goto out;
	}
	if (!lt && g->nr_kids == 1 && is_return(g->kids[0]) && gi + 1 < body->nr_kids) {
		u.multi = 1;
		u.body = body->kids[gi + 1];
		u.body_off = astra_syn_off(c->syn, u.body->t0);
		u.body_end = astra_syn_end(c->syn, body->kids[body->nr_kids - 1]->t1 - 1);
	} else if (lt && g->nr_kids == 1 && gi + 1 == body->nr_kids) {
		u.body = g->kids[0];
		u.body_off = astra_syn_off(c->syn, u.body->t0);
		u.body_end = astra_syn_end(c->syn, u.body->t1 - 1);
	} else {
		astra_buf_adds(c->why, "the bounds check is not followed by the whole rest of the kernel");
		goto out;
	}
	u.stmt = body->kids[vi];
	u.var_type = var_type_text(c, &l->d);
	u.limit = astra_syn_text(c->syn, n0, n1);
	u.start = astra_syn_text(c->syn, l->d.init0, l->d.init1);
	u.stride = xstrdup("");
	nparams = astra_facts_to_params(&c->f, u.limit);
	blk = astra_rk_block_literal(c->rk);
	bparams = c->rk->block && astra_rk_params_only(c->rk, c->rk->block) ? xstrdup(c->rk->block) : NULL;
	if (!nparams || !astra_rk_params_only(c->rk, nparams) || !bparams) {
		astra_buf_addf(c->why, "the element count (%s) or the block size (%s) is not an expression of the "
				       "kernel's parameters, so the new grid cannot be computed", u.limit,
			       c->rk->block ? c->rk->block : "not given");
		goto out;
	}
	if (analyse(c) < 0)
		goto out;
	if (!u.vectorized) {
		astra_buf_adds(c->why, "no access indexed by the element index plus an invariant");
		goto out;
	}
	ept = choose_ept(c);
	if (ept <= 1)
		goto out;
	c->ept = ept;
	{
		struct astra_buf b = ASTRA_BUF_INIT;
		struct astra_syn_edits e = { NULL, 0, 0 };
		char *i0 = xasprintf("%s_i0", c->pfx), *grid;
		int ind = line_indent(c, astra_syn_off(c->syn, u.stmt->t0));
		char *uc = uniform_cond(c, nparams, blk, bparams);
		if (uc) {
			/* dual geometry: where the vector path cannot apply, the original */
			astra_buf_addf(&b, "if (!(%s)) {\n", uc);
			add_indented(c, astra_syn_off(c->syn, u.stmt->t0), astra_syn_end(c->syn, u.stmt->t1 - 1),
				     ind + 1, &b);
			add_indented(c, astra_syn_off(c->syn, g->t0),
				     astra_syn_end(c->syn, body->kids[body->nr_kids - 1]->t1 - 1), ind + 1, &b);
			indent(&b, ind + 1);
			astra_buf_adds(&b, "return;\n");
			indent(&b, ind);
			astra_buf_adds(&b, "}\n");
			indent(&b, ind);
		}
		astra_buf_addf(&b, "const %s %s = (%s)(%s) * %d;\n", u.var_type, i0, u.var_type, u.start, ept);
		indent(&b, ind);
		astra_buf_addf(&b, "if (%s >= (%s))\n", i0, u.limit);
		indent(&b, ind + 1);
		astra_buf_adds(&b, "return;\n");
		if (gen_chunk(c, i0, ind, &b) < 0) {
			astra_buf_release(&b);
			free(i0);
			free(uc);
			r = -1;
			goto out;
		}
		/* the index's declaration goes; from the guard to the end becomes the chunk */
		{
			size_t from = astra_syn_off(c->syn, body->kids[vi]->t0);
			size_t to = astra_syn_end(c->syn, body->kids[vi]->t1 - 1);
			astra_edit_delete(c->rk->text, from, to, &e);
			from = astra_syn_off(c->syn, g->t0);
			to = astra_syn_end(c->syn, body->kids[body->nr_kids - 1]->t1 - 1);
			astra_syn_edit_owned(&e, from, to, astra_buf_detach(&b, NULL));
		}
		if (astra_rk_edit(c->rk, &e) < 0) {
			astra_syn_edits_release(&e);
			free(i0);
			free(uc);
			r = -1;
			goto out;
		}
		astra_syn_edits_release(&e);
		free(i0);
		grid = blk ? xasprintf("((%s) + %ld - 1) / %ld", nparams, blk * ept, blk * ept)
			   : xasprintf("((%s) + (%s) * %d - 1) / ((%s) * %d)", nparams, bparams, ept, bparams, ept);
		if (uc) {
			char *one = blk ? xasprintf("((%s) + %ld - 1) / %ld", nparams, blk, blk)
					: xasprintf("((%s) + (%s) - 1) / (%s)", nparams, bparams, bparams);
			char *dual = xasprintf("(%s) ? %s : %s", uc, grid, one);
			free(one);
			free(grid);
			grid = dual;
			free(uc);
		}
		astra_rk_set_launch(c->rk, grid, c->rk->block, NULL);
		free(grid);
		c->rk->helpers |= HELPER_VEC;
		r = 1;
	}
out:
	free(nparams);
	free(bparams);
	unit_release(&u);
	c->u = NULL;
	return r;
}

int astra_chunk_apply(struct astra_rk *rk, const struct astra_chunk_opts *o, struct astra_buf *why)
{
	struct ck c;
	int r;
	memset(&c, 0, sizeof(c));
	c.rk = rk;
	c.o = o;
	c.why = why;
	if (astra_facts_build(&c.f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	c.syn = &rk->syn;
	c.pfx = pick_prefix(rk->text);
	if (astra_facts_mentions_grid(&c.f, rk->syn.body->t0, rk->syn.body->t1, 1)) {
		astra_buf_adds(why, "the kernel uses a 2-D or 3-D thread index");
		r = 0;
	} else {
		r = o->mode == CHUNK_LOOPS ? apply_loops(&c) : apply_guard(&c);
	}
	free(c.pfx);
	astra_facts_release(&c.f);
	return r;
}
