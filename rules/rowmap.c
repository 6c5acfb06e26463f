/*
 * rowmap.c - thread per row to block or warp per row (see rowmap.h).
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "rules/canon.h"
#include "rules/facts.h"
#include "rules/helpers.h"
#include "rules/rowmap.h"

#define NONE ((size_t)-1)

struct rm {
	struct astra_rk *rk;
	struct astra_facts f;
	struct astra_syn *syn;
	int warp;
	struct astra_syn_edits edits;
	char *lane;          /* name of the thread's index within the row */
	const char *nt;      /* threads per row */
	const char *sync;    /* fence between the row's threads */
	unsigned helpers;
	int distributed;
	struct astra_buf loop_why;   /* why the last loop could not be spread */
	int in_loop;                 /* inside a loop that every thread runs: lane-0 stores are fenced */
	struct astra_buf *why;
	int fail;
};

static void fail(struct rm *m, const char *fmt, ...) ASTRA_PRINTF(2, 3);

static void fail(struct rm *m, const char *fmt, ...)
{
	va_list ap;
	if (m->fail)
		return;
	m->fail = 1;
	va_start(ap, fmt);
	astra_buf_vaddf(m->why, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ memory */

/* The pointer behind an INDEX base token: a parameter (or an alias of one), NULL otherwise. */
static const struct astra_param *ptr_of(struct rm *m, size_t t)
{
	char *off = NULL;
	const struct astra_param *p = astra_facts_pointer(&m->f, m->syn->text + m->syn->toks[t].off,
							  m->syn->toks[t].len, &off);
	free(off);
	return p;
}

struct mem {
	struct rm *m;
	int global_writes;        /* stores through pointers (not local arrays) */
	int unknown;              /* calls passing pointers, atomics: effects unknown */
	int local_array_writes;   /* element stores into arrays declared before [t0, t1) */
	size_t t0, t1;            /* the statement's tokens */
	struct astra_vec wkeys;   /* "base[index]" written */
	struct astra_vec rkeys;   /* "base[index]" read through written bases */
	struct astra_vec wbases;
};

static char *key_of(struct rm *m, const struct astra_expr *ix)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t t;
	for (t = ix->t0; t < ix->t1; t++)
		astra_buf_add(&b, m->syn->text + m->syn->toks[t].off, m->syn->toks[t].len);
	return astra_buf_detach(&b, NULL);
}

static int mem_expr(struct astra_expr *e, void *data)
{
	struct mem *mm = data;
	struct rm *m = mm->m;
	struct astra_expr *lhs = NULL;
	if (e->kind == EX_CALL && e->a->kind == EX_IDENT) {
		size_t k;
		if (astra_syn_is(m->syn, e->a->t0, "printf") || astra_syn_mentions(m->syn, e->a->t0, e->a->t1, "atomicAdd"))
			mm->unknown = 1;
		if (!strncmp(m->syn->text + m->syn->toks[e->a->t0].off, "atomic", 6))
			mm->unknown = 1;
		for (k = 0; k < e->nr_args; k++) {
			const struct astra_expr *a = e->args[k];
			while (a->kind == EX_PAREN || a->kind == EX_CAST)
				a = a->a;
			if (a->kind == EX_IDENT && a->t1 == a->t0 + 1 && ptr_of(m, a->t0) &&
			    !astra_syn_is(m->syn, e->a->t0, "__ldg"))
				mm->unknown = 1;
			if (a->kind == EX_UNARY && astra_syn_is(m->syn, a->op, "&") && a->a->kind == EX_INDEX &&
			    !astra_syn_is(m->syn, e->a->t0, "__ldg"))
				mm->unknown = 1;
		}
		return 0;
	}
	if (e->kind == EX_ASSIGN || e->kind == EX_POSTFIX ||
	    (e->kind == EX_UNARY && (astra_syn_is(m->syn, e->op, "++") || astra_syn_is(m->syn, e->op, "--"))))
		lhs = e->a;
	while (lhs && (lhs->kind == EX_PAREN || lhs->kind == EX_MEMBER))
		lhs = lhs->a;
	if (lhs && lhs->kind == EX_UNARY && astra_syn_is(m->syn, lhs->op, "*")) {
		mm->global_writes++;
		mm->unknown = 1;
		return 0;
	}
	if (lhs && lhs->kind == EX_INDEX) {
		const struct astra_local *l = lhs->a->kind == EX_IDENT ? astra_facts_local_tok(&m->f, lhs->a->t0) : NULL;
		if (l && l->d.is_array && !l->is_shared) {
			if (l->d.name < mm->t0 || l->d.name >= mm->t1)
				mm->local_array_writes++;
			return 0;
		}
		mm->global_writes++;
		if (lhs->a->kind != EX_IDENT || !ptr_of(m, lhs->a->t0)) {
			mm->unknown = 1;
			return 0;
		}
		astra_vec_push_owned(&mm->wkeys, key_of(m, lhs));
		astra_vec_push_owned(&mm->wbases, astra_syn_tokstr(m->syn, lhs->a->t0));
		return 0;
	}
	if (e->kind == EX_INDEX && e->a->kind == EX_IDENT && ptr_of(m, e->a->t0)) {
		const struct astra_expr *p = e->parent;
		while (p && (p->kind == EX_PAREN || p->kind == EX_MEMBER))
			p = p->parent;
		if (!(p && p->kind == EX_ASSIGN && astra_syn_is(m->syn, p->op, "=") && p->a == e))
			astra_vec_push_owned(&mm->rkeys, key_of(m, e));
	}
	return 0;
}

static int mem_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e,
		    void *data)
{
	struct mem *mm = data;
	(void)f;
	(void)s;
	(void)t0;
	(void)t1;
	if (!e) {
		mm->unknown = 1;
		return 0;
	}
	astra_expr_walk(e, mem_expr, mm);
	return 0;
}

static void mem_scan(struct rm *m, struct astra_stmt *s, struct mem *mm)
{
	memset(mm, 0, sizeof(*mm));
	mm->m = m;
	mm->t0 = s->t0;
	mm->t1 = s->t1;
	astra_facts_each_part(&m->f, s, mem_part, mm);
}

static void mem_release(struct mem *mm)
{
	astra_vec_clear(&mm->wkeys);
	astra_vec_clear(&mm->rkeys);
	astra_vec_clear(&mm->wbases);
}

/* Runs the same in every thread with no effect outside them? */
static int pure(struct rm *m, struct astra_stmt *s)
{
	struct mem mm;
	int r;
	mem_scan(m, s, &mm);
	r = !mm.global_writes && !mm.unknown;
	mem_release(&mm);
	return r;
}

/* ------------------------------------------------------------ loops */

struct red {
	char *name;
	enum astra_combine comb;
	int is_sum;
	char *argmax_value;     /* argmax: name is the index, this the value variable; else NULL */
};

static int comb_of_call(struct rm *m, const struct astra_expr *call)
{
	static const struct {
		const char *fn;
		enum astra_combine c;
	} fns[] = { { "fmaxf", COMBINE_FMAXF }, { "fminf", COMBINE_FMINF }, { "max", COMBINE_MAX }, { "min", COMBINE_MIN } };
	size_t i;
	if (call->kind != EX_CALL || call->a->kind != EX_IDENT || call->nr_args != 2)
		return -1;
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		if (astra_syn_is(m->syn, call->a->t0, fns[i].fn))
			return fns[i].c;
	/* fmax/fmin of floats are fmaxf/fminf (their float overloads) */
	if ((astra_syn_is(m->syn, call->a->t0, "fmax") || astra_syn_is(m->syn, call->a->t0, "fmin")) &&
	    astra_facts_type(&m->f, call->args[0]) == TY_FLOAT && astra_facts_type(&m->f, call->args[1]) == TY_FLOAT)
		return astra_syn_is(m->syn, call->a->t0, "fmax") ? COMBINE_FMAXF : COMBINE_FMINF;
	return -1;
}

static int is_name(struct rm *m, const struct astra_expr *e, const char *name)
{
	return astra_syn_is_name(m->syn, e, name);
}

struct upd {
	struct rm *m;
	const char *name;
	int comb;           /* -1 unknown yet, -2 not a reduction */
	size_t *allowed;    /* token positions of name inside its own updates */
	size_t nr_allowed, alloc_allowed;
};

static void allow(struct upd *u, const struct astra_expr *e)
{
	while (e->kind == EX_PAREN)
		e = e->a;
	ALLOC_GROW(u->allowed, u->nr_allowed + 1, u->alloc_allowed);
	u->allowed[u->nr_allowed++] = e->t0;
}

static void set_comb(struct upd *u, int c)
{
	if (u->comb == -1)
		u->comb = c;
	else if (u->comb != c)
		u->comb = -2;
}

/* Find every update of u->name; classify it as a reduction step or not. */
static int upd_expr(struct astra_expr *e, void *data)
{
	struct upd *u = data;
	struct rm *m = u->m;
	const struct astra_expr *r;
	if (!(e->kind == EX_ASSIGN || e->kind == EX_POSTFIX || e->kind == EX_UNARY) || !e->a || !is_name(m, e->a, u->name))
		return 0;
	if (e->kind != EX_ASSIGN) {
		if (astra_syn_is(m->syn, e->op, "++") || astra_syn_is(m->syn, e->op, "--") ||
		    astra_syn_is(m->syn, e->op, "&"))
			u->comb = -2;
		return 0;
	}
	allow(u, e->a);
	if (astra_syn_is(m->syn, e->op, "+=")) {
		if (astra_syn_mentions(m->syn, e->b->t0, e->b->t1, u->name))
			u->comb = -2;
		else
			set_comb(u, COMBINE_SUM);
		return 0;
	}
	if (!astra_syn_is(m->syn, e->op, "=")) {
		u->comb = -2;
		return 0;
	}
	r = e->b;
	while (r->kind == EX_PAREN)
		r = r->a;
	if (r->kind == EX_BINARY && astra_syn_is(m->syn, r->op, "+")) {
		const struct astra_expr *other = is_name(m, r->a, u->name) ? r->b : is_name(m, r->b, u->name) ? r->a : NULL;
		if (!other || astra_syn_mentions(m->syn, other->t0, other->t1, u->name)) {
			u->comb = -2;
			return 0;
		}
		allow(u, other == r->b ? r->a : r->b);
		set_comb(u, COMBINE_SUM);
		return 0;
	}
	if (comb_of_call(m, r) >= 0) {
		const struct astra_expr *other = is_name(m, r->args[0], u->name) ? r->args[1] :
						 is_name(m, r->args[1], u->name) ? r->args[0] : NULL;
		if (!other || astra_syn_mentions(m->syn, other->t0, other->t1, u->name)) {
			u->comb = -2;
			return 0;
		}
		allow(u, other == r->args[1] ? r->args[0] : r->args[1]);
		set_comb(u, comb_of_call(m, r));
		return 0;
	}
	u->comb = -2;
	return 0;
}

static int upd_part(struct astra_facts *f, struct astra_stmt *s, size_t t0, size_t t1, struct astra_expr *e, void *data)
{
	(void)f;
	(void)s;
	(void)t0;
	(void)t1;
	if (!e) {
		((struct upd *)data)->comb = -2;
		return 0;
	}
	astra_expr_walk(e, upd_expr, data);
	return 0;
}

/* Checks on the statements of a loop body that is to be spread. */
struct body_check {
	struct rm *m;
	struct astra_stmt *loop;
	const char *why;
};

static int body_stmt(struct astra_stmt *s, void *data)
{
	struct body_check *b = data;
	struct astra_stmt *p;
	if (s->kind == STMT_RETURN || s->kind == STMT_GOTO || s->kind == STMT_LABEL || s->kind == STMT_OTHER) {
		b->why = "its body returns, jumps or has a statement the rules cannot read";
		return 1;
	}
	if (s->kind == STMT_BREAK) {
		for (p = s->parent; p; p = p->parent)
			if (p->kind == STMT_FOR || p->kind == STMT_WHILE || p->kind == STMT_DO || p->kind == STMT_SWITCH)
				break;
		if (p == b->loop) {
			b->why = "its body breaks out of it";
			return 1;
		}
	}
	return 0;
}

static int is_name_tok(struct rm *m, size_t t, const char *name)
{
	return m->syn->toks[t].kind == SYN_IDENT && astra_syn_is(m->syn, t, name) &&
	       !(t > 0 && (astra_syn_is(m->syn, t - 1, ".") || astra_syn_is(m->syn, t - 1, "->")));
}

/*
 * The argmax idiom of a top-k selection: the loop's only effect on the row
 * is `if (COND && (best < 0 || VAL > bv)) { best = j; bv = VAL; }`, with
 * best starting negative (none yet).  Spread over the threads, each one
 * finds the first maximum among its own j (ascending), then the threads'
 * pairs are combined: the larger value wins, the smaller index on a tie,
 * a thread with none loses -- the sequential loop's answer.
 */
static int argmax(struct rm *m, struct astra_stmt *loop, struct astra_stmt *body, struct red **reds, size_t *nr)
{
	const struct astra_syn *syn = m->syn;
	struct astra_stmt *iff = NULL, *then;
	struct astra_expr *a1, *a2, *cond, *val;
	const struct astra_local *lb, *lv;
	struct astra_decl *d = NULL;
	char *best, *bv, *var, *valtxt, *v2;
	size_t i, t;
	int ok = 0;

	if (body->kind != STMT_BLOCK)
		return 0;
	for (i = 0; i < body->nr_kids; i++)
		if (body->kids[i]->kind == STMT_IF && body->kids[i]->nr_kids == 1) {
			if (iff)
				return 0;
			iff = body->kids[i];
		}
	if (!iff)
		return 0;
	then = iff->kids[0];
	if (then->kind != STMT_BLOCK || then->nr_kids != 2 || then->kids[0]->kind != STMT_EXPR ||
	    then->kids[1]->kind != STMT_EXPR)
		return 0;
	a1 = astra_syn_expr(m->syn, then->kids[0]->a0, then->kids[0]->a1);
	a2 = astra_syn_expr(m->syn, then->kids[1]->a0, then->kids[1]->a1);
	if (!a1 || !a2 || a1->kind != EX_ASSIGN || a2->kind != EX_ASSIGN || !astra_syn_is(syn, a1->op, "=") ||
	    !astra_syn_is(syn, a2->op, "=") || a1->a->kind != EX_IDENT || a2->a->kind != EX_IDENT)
		return 0;
	if (astra_syn_decls(syn, loop->a0, loop->a1, &d) != 1)
		return 0;
	var = astra_syn_tokstr(syn, d[0].name);
	free(d);
	if (is_name(m, a2->b, var)) {
		struct astra_expr *x = a1;
		a1 = a2;
		a2 = x;
	}
	if (!is_name(m, a1->b, var)) {
		free(var);
		return 0;
	}
	best = astra_syn_tokstr(syn, a1->a->t0);
	bv = astra_syn_tokstr(syn, a2->a->t0);
	cond = astra_syn_expr(m->syn, iff->a0, iff->a1);
	val = cond ? astra_syn_argmax_value(m->syn, cond, best, bv) : NULL;
	valtxt = astra_syn_text(syn, a2->b->t0, a2->b->t1);
	v2 = val ? astra_syn_text(syn, val->t0, val->t1) : NULL;
	lb = astra_facts_local(&m->f, best, strlen(best));
	lv = astra_facts_local(&m->f, bv, strlen(bv));
	if (v2 && !strcmp(valtxt, v2) && lb && lv && lb->nr_decls == 1 && lv->nr_decls == 1 && !lb->d.is_array &&
	    !lv->d.is_array && lb->d.init1 == lb->d.init0 + 2 && astra_syn_is(syn, lb->d.init0, "-") &&
	    syn->toks[lb->d.init0 + 1].kind == SYN_NUMBER && (lb->d.name < body->t0 || lb->d.name >= body->t1) &&
	    (lv->d.name < body->t0 || lv->d.name >= body->t1) && !astra_syn_mentions(syn, a2->b->t0, a2->b->t1, best) &&
	    !astra_syn_mentions(syn, a2->b->t0, a2->b->t1, bv)) {
		/* best and bv appear nowhere else in the loop, and nothing else of the row changes */
		ok = 1;
		for (t = body->t0; t < body->t1 && ok; t++) {
			const struct astra_local *l;
			int in_if = t >= iff->t0 && t < iff->t1;
			if ((is_name_tok(m, t, best) || is_name_tok(m, t, bv)) && !in_if)
				ok = 0;
			l = astra_facts_local_tok(&m->f, t);
			if (l && (l->d.name < body->t0 || l->d.name >= body->t1) && l != lb && l != lv &&
			    astra_facts_assigned_in(&m->f, l->name, strlen(l->name), body->t0, body->t1))
				ok = 0;
		}
	}
	if (ok) {
		*reds = xrealloc(*reds, (*nr + 1) * sizeof(**reds));
		memset(&(*reds)[*nr], 0, sizeof(**reds));
		(*reds)[*nr].name = xstrdup(best);
		(*reds)[*nr].argmax_value = xstrdup(bv);
		(*nr)++;
	}
	free(best);
	free(bv);
	free(var);
	free(valtxt);
	free(v2);
	return ok;
}

/*
 * Can the loop s be spread over the row's threads?  Its reductions go to
 * *reds.  Returns 1, or 0 with *why.
 */
static int spreadable(struct rm *m, struct astra_stmt *s, struct red **reds, size_t *nr_reds, const char **why)
{
	const struct astra_syn *syn = m->syn;
	struct astra_decl *d = NULL;
	struct body_check bc;
	struct mem mm;
	char *var;
	size_t t, i;
	struct astra_stmt *body;
	int ok = 1;

	*reds = NULL;
	*nr_reds = 0;
	if (s->kind != STMT_FOR || astra_syn_decls(syn, s->a0, s->a1, &d) != 1 || d[0].init1 <= d[0].init0) {
		free(d);
		*why = "not a counted for loop declaring its index";
		return 0;
	}
	var = astra_syn_tokstr(syn, d[0].name);
	free(d);
	if (!(s->b1 > s->b0 + 2 && astra_syn_is(syn, s->b0, var) && astra_syn_is(syn, s->b0 + 1, "<") &&
	      !astra_syn_mentions(syn, s->b0 + 2, s->b1, var))) {
		*why = "its condition is not `j < bound`";
		free(var);
		return 0;
	}
	if (!((s->c1 == s->c0 + 2 && ((astra_syn_is(syn, s->c0, "++") && astra_syn_is(syn, s->c0 + 1, var)) ||
				      (astra_syn_is(syn, s->c0, var) && astra_syn_is(syn, s->c0 + 1, "++")))) ||
	      (s->c1 == s->c0 + 3 && astra_syn_is(syn, s->c0, var) && astra_syn_is(syn, s->c0 + 1, "+=") &&
	       astra_syn_is(syn, s->c0 + 2, "1")))) {
		*why = "it does not step by one";
		free(var);
		return 0;
	}
	body = s->kids[0];
	if (astra_facts_assigned_in(&m->f, var, strlen(var), body->t0, body->t1)) {
		*why = "its body changes the index";
		free(var);
		return 0;
	}
	free(var);
	bc.m = m;
	bc.loop = s;
	bc.why = NULL;
	if (astra_syn_walk(body, body_stmt, &bc)) {
		*why = bc.why;
		return 0;
	}
	mem_scan(m, body, &mm);
	if (mm.unknown || mm.local_array_writes) {
		*why = mm.unknown ? "its body stores through pointers the rules cannot follow or calls atomics"
				  : "its body fills an array of the thread";
		mem_release(&mm);
		return 0;
	}
	/* a location written by one iteration and read by another */
	for (i = 0; i < mm.rkeys.nr && ok; i++) {
		char *br = xstrndup(mm.rkeys.v[i], strcspn(mm.rkeys.v[i], "["));
		if (astra_vec_find(&mm.wbases, br) >= 0 && astra_vec_find(&mm.wkeys, mm.rkeys.v[i]) < 0)
			ok = 0;
		free(br);
	}
	mem_release(&mm);
	if (!ok) {
		*why = "its body reads memory it writes at another index (iterations depend on each other)";
		return 0;
	}
	/* an argmax: `if (... (best < 0 || v > bv)) { best = j; bv = v; }` */
	if (argmax(m, s, body, reds, nr_reds))
		return 1;
	/* scalars of the row changed by the body: reductions, or not spreadable */
	for (t = body->t0; t < body->t1 && ok; t++) {
		const struct astra_local *l;
		char *name;
		struct upd u;
		size_t k, j;
		if (syn->toks[t].kind != SYN_IDENT)
			continue;
		l = astra_facts_local_tok(&m->f, t);
		if (!l || (l->d.name >= body->t0 && l->d.name < body->t1))
			continue;
		name = astra_syn_tokstr(syn, t);
		if (!astra_facts_assigned_in(&m->f, name, strlen(name), body->t0, body->t1)) {
			free(name);
			continue;
		}
		for (k = 0; k < *nr_reds; k++)
			if (!strcmp((*reds)[k].name, name))
				break;
		if (k < *nr_reds) {
			free(name);
			continue;
		}
		if (l->d.is_array || l->is_pointer || l->nr_decls != 1) {
			*why = "its body changes a variable of the row that is not a sum, max or min";
			free(name);
			ok = 0;
			break;
		}
		memset(&u, 0, sizeof(u));
		u.m = m;
		u.name = name;
		u.comb = -1;
		astra_facts_each_part(&m->f, body, upd_part, &u);
		/* every other use of the accumulator in the body breaks the reduction */
		for (j = body->t0; j < body->t1 && u.comb >= 0; j++) {
			size_t a;
			int allowed = 0;
			if (syn->toks[j].kind != SYN_IDENT || !astra_syn_is(syn, j, name) ||
			    (j > 0 && (astra_syn_is(syn, j - 1, ".") || astra_syn_is(syn, j - 1, "->"))))
				continue;
			for (a = 0; a < u.nr_allowed; a++)
				if (u.allowed[a] == j)
					allowed = 1;
			if (!allowed)
				u.comb = -2;
		}
		free(u.allowed);
		if (u.comb < 0) {
			*why = "its body changes a variable of the row that is not a sum, max or min";
			free(name);
			ok = 0;
			break;
		}
		*reds = xrealloc(*reds, (*nr_reds + 1) * sizeof(**reds));
		memset(&(*reds)[*nr_reds], 0, sizeof(**reds));
		(*reds)[*nr_reds].name = name;
		(*reds)[*nr_reds].comb = (enum astra_combine)u.comb;
		(*reds)[*nr_reds].is_sum = u.comb == COMBINE_SUM;
		(*nr_reds)++;
	}
	if (!ok) {
		size_t k;
		for (k = 0; k < *nr_reds; k++) {
			free((*reds)[k].name);
			free((*reds)[k].argmax_value);
		}
		free(*reds);
		*reds = NULL;
		*nr_reds = 0;
	}
	return ok;
}

static void spread(struct rm *m, struct astra_stmt *s, struct red *reds, size_t nr_reds, int more_follow)
{
	const struct astra_syn *syn = m->syn;
	struct astra_decl *d = NULL;
	char *ind = astra_rk_line_indent(m->rk, astra_syn_off(syn, s->t0)), *var;
	struct astra_buf after = ASTRA_BUF_INIT;
	struct mem mm;
	size_t k;

	astra_syn_decls(syn, s->a0, s->a1, &d);
	var = astra_syn_tokstr(syn, d[0].name);
	if (d[0].init1 == d[0].init0 + 1 && astra_syn_is(syn, d[0].init0, "0"))
		astra_syn_edit(&m->edits, astra_syn_off(syn, d[0].init0), astra_syn_end(syn, d[0].init1 - 1), m->lane);
	else {
		char *a = astra_syn_text(syn, d[0].init0, d[0].init1);
		astra_syn_edit_owned(&m->edits, astra_syn_off(syn, d[0].init0), astra_syn_end(syn, d[0].init1 - 1),
				      xasprintf("(%s) + %s", a, m->lane));
		free(a);
	}
	astra_syn_edit_owned(&m->edits, astra_syn_off(syn, s->c0), astra_syn_end(syn, s->c1 - 1),
			      xasprintf("%s += %s", var, m->nt));
	for (k = 0; k < nr_reds; k++) {
		if (reds[k].argmax_value) {
			astra_buf_addf(&after, "\n%sastra_" ASTRA_SFX "_%s(%s, %s);", ind, m->warp ? "wargmax" : "bargmax",
				       reds[k].argmax_value, reds[k].name);
			m->helpers |= m->warp ? HELPER_WARGMAX : HELPER_BARGMAX;
			continue;
		}
		if (reds[k].is_sum)
			astra_syn_edit_owned(&m->edits, astra_syn_off(syn, s->t0), astra_syn_off(syn, s->t0),
					      xasprintf("if (%s != 0)\n%s\t%s = 0;\n%s", m->lane, ind, reds[k].name, ind));
		astra_buf_addf(&after, "\n%s%s = astra_" ASTRA_SFX "_%s_%s(%s);", ind, reds[k].name,
			       m->warp ? "wred" : "bred", astra_combine_name(reds[k].comb), reds[k].name);
		m->helpers |= m->warp ? HELPER_WARP_OF(reds[k].comb) : HELPER_BLOCK_OF(reds[k].comb);
	}
	mem_scan(m, s, &mm);
	if (mm.global_writes && more_follow)
		astra_buf_addf(&after, "\n%s%s", ind, m->sync);
	mem_release(&mm);
	if (after.len)
		astra_syn_edit_owned(&m->edits, astra_syn_end(syn, s->t1 - 1), astra_syn_end(syn, s->t1 - 1),
				      astra_buf_detach(&after, NULL));
	astra_buf_release(&after);
	m->distributed++;
	free(ind);
	free(var);
	free(d);
}

/* Wrap statements [a, b] so that one thread of the row runs them; indent them one more tab. */
static void one_thread(struct rm *m, struct astra_stmt *a, struct astra_stmt *b, int fence)
{
	char *ind = astra_rk_line_indent(m->rk, astra_syn_off(m->syn, a->t0));
	size_t from = astra_syn_off(m->syn, a->t0), to = astra_syn_end(m->syn, b->t1 - 1), o;
	astra_syn_edit_owned(&m->edits, from, from, xasprintf("if (%s == 0) {\n%s\t", m->lane, ind));
	for (o = from; o < to; o++)
		if (m->rk->text[o] == '\n' && m->rk->text[o + 1] != '\n')
			astra_syn_edit(&m->edits, o + 1, o + 1, "\t");
	astra_syn_edit_owned(&m->edits, to, to, fence ? xasprintf("\n%s}\n%s%s", ind, ind, m->sync) : xasprintf("\n%s}", ind));
	free(ind);
}

/* Does any statement after v[i] mention one of the bases s writes? */
static int read_later(struct rm *m, struct astra_stmt *s, struct astra_stmt **v, size_t i, size_t n)
{
	struct mem mm;
	size_t k, j;
	int r = 0;
	mem_scan(m, s, &mm);
	for (k = 0; k < mm.wbases.nr && !r; k++)
		for (j = i + 1; j < n && !r; j++)
			r = astra_syn_mentions(m->syn, v[j]->t0, v[j]->t1, mm.wbases.v[k]);
	if (mm.unknown)
		r = 1;
	mem_release(&mm);
	return r;
}

static void process(struct rm *m, struct astra_stmt **v, size_t n, int top);
static void process_kid(struct rm *m, struct astra_stmt *k);

/*
 * A sequential loop every thread of the row runs, its body handled like
 * the row's code (inner loops spread, stores by one thread and fenced,
 * since a later iteration may read them).  Only when everything inside
 * finds a place; otherwise nothing of it is kept.
 */
static int uniform_loop(struct rm *m, struct astra_stmt *s)
{
	size_t nr_edits = m->edits.nr, why_len = m->why->len, k;
	unsigned helpers = m->helpers;
	int distributed = m->distributed;
	if (astra_facts_assigned_in(&m->f, m->lane, strlen(m->lane), s->t0, s->t1))
		return 0;
	m->in_loop++;
	process_kid(m, s->kids[0]);
	m->in_loop--;
	if (!m->fail && m->distributed > distributed)
		return 1;
	for (k = nr_edits; k < m->edits.nr; k++)
		free(m->edits.items[k].text);
	m->edits.nr = nr_edits;
	astra_buf_setlen(m->why, why_len);
	m->helpers = helpers;
	m->distributed = distributed;
	m->fail = 0;
	return 0;
}

/* Does code that may read memory follow v[i] in its list? */
static int more_follow(struct astra_stmt **v, size_t i, size_t n)
{
	for (i++; i < n; i++)
		if (v[i]->kind != STMT_RETURN && v[i]->kind != STMT_EMPTY && v[i]->kind != STMT_PP)
			return 1;
	return 0;
}

static void process_kid(struct rm *m, struct astra_stmt *k)
{
	if (k->kind == STMT_BLOCK)
		process(m, k->kids, k->nr_kids, 0);
	else
		process(m, &k, 1, 0);
}

static void process(struct rm *m, struct astra_stmt **v, size_t n, int top)
{
	size_t i;
	for (i = 0; i < n && !m->fail; i++) {
		struct astra_stmt *s = v[i];
		struct red *reds = NULL;
		size_t nr_reds = 0, k;
		const char *why = NULL;
		switch (s->kind) {
		case STMT_FOR:
			if (!spreadable(m, s, &reds, &nr_reds, &why)) {
				char *h = astra_syn_text(m->syn, s->t0, s->kids[0]->t0);
				astra_buf_reset(&m->loop_why);
				astra_buf_addf(&m->loop_why, "`%s`: %s", h, why);
				free(h);
			} else {
				spread(m, s, reds, nr_reds, more_follow(v, i, n));
				for (k = 0; k < nr_reds; k++) {
					free(reds[k].name);
					free(reds[k].argmax_value);
				}
				free(reds);
				break;
			}
			/* fall through */
		case STMT_WHILE:
		case STMT_DO:
			if (pure(m, s))
				break;
			if (s->kind == STMT_FOR && uniform_loop(m, s))
				break;
			if (top) {
				one_thread(m, s, v[n - 1], 0);
				return;
			}
			fail(m, "a loop that stores to memory and cannot be spread over the row (%s) sits inside a condition",
			     why ? why : "not a for loop");
			return;
		case STMT_IF:
			for (k = 0; k < s->nr_kids; k++)
				process_kid(m, s->kids[k]);
			break;
		case STMT_BLOCK:
			process(m, s->kids, s->nr_kids, 0);
			break;
		case STMT_DECL:
		case STMT_EXPR:
			if (pure(m, s))
				break;
			if (s->kind == STMT_EXPR) {
				struct mem mm;
				int simple;
				mem_scan(m, s, &mm);
				simple = !mm.unknown && mm.global_writes == 1 && !mm.local_array_writes;
				mem_release(&mm);
				if (simple) {
					one_thread(m, s, s, m->in_loop || (more_follow(v, i, n) && read_later(m, s, v, i, n)));
					break;
				}
			}
			if (top) {
				one_thread(m, s, v[n - 1], 0);
				return;
			}
			fail(m, "a statement with effects the rules cannot place sits inside a condition");
			return;
		case STMT_RETURN:
		case STMT_EMPTY:
		case STMT_PP:
			break;
		default:
			fail(m, "the row's code has a statement the rules cannot place (switch, goto, label)");
			return;
		}
	}
}

static int guard_of(struct rm *m, struct astra_stmt *g, const char *var, size_t *n0, size_t *n1, int *lt)
{
	const struct astra_syn *syn = m->syn;
	if (g->kind != STMT_IF || g->a1 < g->a0 + 3)
		return 0;
	if (astra_syn_is(syn, g->a0, var) && (astra_syn_is(syn, g->a0 + 1, ">=") || astra_syn_is(syn, g->a0 + 1, "<"))) {
		*lt = astra_syn_is(syn, g->a0 + 1, "<");
		*n0 = g->a0 + 2;
		*n1 = g->a1;
		return !astra_syn_mentions(syn, *n0, *n1, var);
	}
	return 0;
}

int astra_rowmap_apply(struct astra_rk *rk, int warp, struct astra_buf *why)
{
	struct rm m;
	struct astra_stmt *body, *g = NULL;
	const struct astra_local *row = NULL;
	size_t vi, gi, n0 = 0, n1 = 0, t;
	int lt = 0, r = 0;
	char *rows = NULL, *rowsp = NULL;

	memset(&m, 0, sizeof(m));
	astra_buf_init(&m.loop_why, 0); /* memset leaves buf NULL: printed as "(null)" */
	m.rk = rk;
	m.warp = warp;
	m.why = why;
	/* a row's maximum written `if (x > m) m = x;` is the fmaxf the combining reads */
	if (astra_canon_minmax(rk) < 0)
		return -1;
	if (astra_facts_build(&m.f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	m.syn = &rk->syn;
	body = m.syn->body;
	if (astra_facts_mentions_grid(&m.f, body->t0, body->t1, 1)) {
		astra_buf_adds(why, "the kernel uses a 2-D or 3-D thread index");
		goto out;
	}
	for (vi = 0; vi < body->nr_kids; vi++) {
		struct astra_stmt *s = body->kids[vi];
		struct astra_decl *d = NULL;
		if (s->kind == STMT_DECL && astra_syn_decls(m.syn, s->a0, s->a1, &d) == 1 && d[0].init1 > d[0].init0) {
			struct astra_expr *init = astra_syn_expr(m.syn, d[0].init0, d[0].init1);
			if (init && astra_facts_tix(&m.f, init) == TIX_GTID)
				row = astra_facts_local_tok(&m.f, d[0].name);
		}
		free(d);
		if (row)
			break;
	}
	if (!row || row->nr_decls != 1 || row->assigned) {
		astra_buf_adds(why, "no `row = blockIdx.x * blockDim.x + threadIdx.x` set once at the top of the kernel");
		goto out;
	}
	for (gi = vi + 1; gi < body->nr_kids; gi++) {
		if (body->kids[gi]->kind == STMT_IF) {
			g = body->kids[gi];
			break;
		}
		if (body->kids[gi]->kind != STMT_DECL || !pure(&m, body->kids[gi])) {
			astra_buf_adds(why, "statements with effects between the row index and its bounds check");
			goto out;
		}
	}
	if (!g || !guard_of(&m, g, row->name, &n0, &n1, &lt) ||
	    !((!lt && g->nr_kids == 1 && (g->kids[0]->kind == STMT_RETURN ||
					  (g->kids[0]->kind == STMT_BLOCK && g->kids[0]->nr_kids == 1 &&
					   g->kids[0]->kids[0]->kind == STMT_RETURN))) ||
	      (lt && g->nr_kids == 1 && gi + 1 == body->nr_kids))) {
		astra_buf_addf(why, "no bounds check `if (%s >= rows) return;` or `if (%s < rows) { ... }` after the row index",
			       row->name, row->name);
		goto out;
	}
	/* one thread per row: nothing else may depend on the thread */
	for (t = body->t0; t < body->t1; t++) {
		if (t >= row->d.init0 && t < row->d.init1)
			continue;
		if (astra_syn_is(m.syn, t, "threadIdx") || astra_syn_is(m.syn, t, "blockIdx") ||
		    astra_syn_is(m.syn, t, "blockDim") || astra_syn_is(m.syn, t, "gridDim") ||
		    astra_syn_is(m.syn, t, "__shared__") || astra_syn_is(m.syn, t, "__syncthreads") ||
		    astra_syn_is(m.syn, t, "__syncwarp") || !strncmp(m.syn->text + m.syn->toks[t].off, "__shfl", 6)) {
			char *w = astra_syn_tokstr(m.syn, t);
			astra_buf_addf(why, "the kernel uses %s besides the row index (not a thread-per-row kernel)", w);
			free(w);
			goto out;
		}
	}
	rows = astra_syn_text(m.syn, n0, n1);
	rowsp = astra_facts_to_params(&m.f, rows);
	if (!rowsp || !astra_rk_params_only(rk, rowsp)) {
		astra_buf_addf(why, "the row count (%s) is not an expression of the kernel's parameters", rows);
		goto out;
	}
	{
		int n;
		for (n = 0;; n++) {
			m.lane = n ? xasprintf("astra_lane%d", n) : xstrdup("astra_lane");
			if (!strstr(rk->text, m.lane))
				break;
			free(m.lane);
		}
	}
	m.nt = warp ? "32" : "blockDim.x";
	m.sync = warp ? "__syncwarp();" : "__syncthreads();";
	if (lt && g->kids[0]->kind == STMT_BLOCK)
		process(&m, g->kids[0]->kids, g->kids[0]->nr_kids, 1);
	else if (lt)
		process(&m, &g->kids[0], 1, 1);
	else
		process(&m, body->kids + gi + 1, body->nr_kids - gi - 1, 1);
	if (m.fail)
		goto out;
	if (!m.distributed) {
		astra_buf_addf(why, "no loop over the row can be spread over threads%s%s", m.loop_why.len ? ": " : "",
			       m.loop_why.buf);
		goto out;
	}
	/* the row index and the lane */
	{
		char *ty = astra_syn_text(m.syn, row->d.ty0, row->d.ty1);
		char *ind = astra_rk_line_indent(m.rk, astra_syn_off(m.syn, row->stmt->t0));
		astra_syn_edit_owned(&m.edits, astra_syn_off(m.syn, row->d.init0), astra_syn_end(m.syn, row->d.init1 - 1),
				      warp ? xstrdup("(int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5)") : xstrdup("blockIdx.x"));
		astra_syn_edit_owned(&m.edits, astra_syn_end(m.syn, row->stmt->t1 - 1), astra_syn_end(m.syn, row->stmt->t1 - 1),
				      xasprintf("\n%sconst int %s = %s;", ind, m.lane, warp ? "threadIdx.x & 31" : "threadIdx.x"));
		free(ty);
		free(ind);
	}
	if (astra_rk_edit(rk, &m.edits) < 0) {
		astra_buf_adds(why, "overlapping rewrites");
		r = -1;
		goto out;
	}
	{
		char *grid = warp ? xasprintf("((%s) + 7) / 8", rowsp) : xstrdup(rowsp);
		astra_rk_set_launch(rk, grid, "256", NULL);
		free(grid);
	}
	rk->helpers |= m.helpers;
	r = 1;
out:
	free(rows);
	free(rowsp);
	free(m.lane);
	astra_buf_release(&m.loop_why);
	astra_syn_edits_release(&m.edits);
	astra_facts_release(&m.f);
	return r;
}
