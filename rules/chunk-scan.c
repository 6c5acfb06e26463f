/*
 * chunk-scan.c - the chunk rewrite's analysis (chunk-int.h): indices
 * classified (INV, UNIT, VARY), locals of the body expanded, pointers
 * resolved to parameters, a loop's accesses collected into groups and
 * what may be hoisted chosen.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "rules/chunk-int.h"

/* ------------------------------------------------------------- classify */

int astra_chunk_tok_is_var(struct ck *c, size_t t)
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

size_t astra_chunk_body_t0(struct ck *c)
{
	size_t t = 0;
	while (t < c->syn->nr_toks && astra_syn_off(c->syn, t) < c->u->body_off)
		t++;
	return t;
}

size_t astra_chunk_body_t1(struct ck *c)
{
	size_t t = astra_chunk_body_t0(c);
	while (t < c->syn->nr_toks && astra_syn_off(c->syn, t) < c->u->body_end)
		t++;
	return t;
}

static int assigned_in_body(struct ck *c, const char *name, size_t len)
{
	return astra_facts_assigned_in(&c->f, name, len, astra_chunk_body_t0(c), astra_chunk_body_t1(c));
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
	if (astra_chunk_tok_is_var(c, t))
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
			if (x->kind == EX_IDENT && x->t1 == x->t0 + 1 && astra_chunk_tok_is_var(c, x->t0)) {
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
	if (astra_chunk_tok_is_var(c, e->t0))
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
			key = xasprintf("%s|pair|%s", base, kb.buf); /* the base, not the parameter: gate[i] and up[i] may both come from input */
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
		key = xasprintf("%s|%s", base, kb.buf); /* as above: one group per pointer expression and index */
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

int astra_chunk_has_side_effects(struct ck *c, size_t t0, size_t t1)
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
						se = d[k].init1 > d[k].init0 && astra_chunk_has_side_effects(c, d[k].init0, d[k].init1);
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
				if (e && !astra_chunk_has_side_effects(c, st->a0, st->a1))
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


/* Analyse c->u; 0 when it can be rewritten (maybe with nothing to vectorize), -1 declined. */
int astra_chunk_analyse(struct ck *c)
{
	struct unit *u = c->u;
	size_t t0 = astra_chunk_body_t0(c), t1 = astra_chunk_body_t1(c), t, i;
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
		if (c->syn->toks[t].kind != SYN_IDENT || astra_chunk_tok_is_var(c, t))
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
	astra_chunk_find_dead(c);
	return 0;
}

