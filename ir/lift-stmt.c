/*
 * lift-stmt.c - the lifter's statements (see lift.h): declarations,
 * assignments and stores, guards (bounds checks, early returns, a
 * thread's role such as `threadIdx.x == 0`), loops over a row's columns
 * or the grid, accumulations (sum, max, min), and the mechanisms that
 * combine threads' parts of a reduction: warp-shuffle loops, a
 * shared-memory tree, a shared array of per-warp parts.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "ir/lift.h"
#include "lib/util.h"

const char *lift_reduce_op(const char *fn)
{
	if (!strcmp(fn, "fmaxf") || !strcmp(fn, "fmax") || !strcmp(fn, "max") || !strcmp(fn, "__hmax"))
		return "max";
	if (!strcmp(fn, "fminf") || !strcmp(fn, "fmin") || !strcmp(fn, "min") || !strcmp(fn, "__hmin"))
		return "min";
	return NULL;
}

static int is_zero(const struct astra_ir_node *n)
{
	char *end;
	double d;
	if (n->kind != IR_NUM)
		return 0;
	d = strtod(n->s, &end);
	return d == 0 && end != n->s;
}

static const char *name_of(const struct astra_ir_node *n)
{
	while (n->kind == IR_CAST)
		n = n->a[0];
	return n->kind == IR_NAME ? n->s : NULL;
}

/* The loop the innermost accumulation belongs to. */
static struct loopctx *inner(struct lifter *L)
{
	return L->nr_loops ? &L->loops[L->nr_loops - 1] : NULL;
}

static void accumulate(struct lifter *L, struct lvar *v, const char *op, struct astra_ir_node *e)
{
	struct loopctx *lp = inner(L);
	struct astra_ir_node *r;
	int seeded = lp->kind == LOOP_SEQ && !lp->rows && !(!strcmp(op, "sum") && is_zero(v->val)) &&
		     (!strcmp(lp->axis, "k") || !strcmp(op, "sum"));
	if (lp->rows)
		lift_fail(L, "a loop over rows changes `%s`", v->name);
	if (!strcmp(op, "sum") && !is_zero(v->val) && !seeded)
		lift_fail(L, "the sum `%s` does not start at 0", v->name);
	if (v->val->kind == IR_RED || v->val->kind == IR_PARTIAL)
		lift_fail(L, "`%s` accumulates twice in one loop", v->name);
	if (seeded && lift_depends(v->val, lp->axis))
		lift_fail(L, "`%s` starts from a value of the loop over %s", v->name, lp->axis);
	/* a thread's own sum (a contraction's max or min too) that starts elsewhere than 0 keeps its start */
	if (seeded)
		r = astra_ir_node(L->ar, IR_RED, op, 2, e, v->val);
	else
		r = astra_ir_node(L->ar, lp->kind == LOOP_SEQ ? IR_RED : IR_PARTIAL, op, 1, e);
	r->axis = lp->axis;
	r->scope = IR_SCOPE_THREAD;
	v->val = r;
	v->acc_loop = L->nr_loops;
}

/* v = new, where new may be v's old value combined with e: which op? */
static const char *combination(struct astra_ir_node *nv, struct astra_ir_node *old, struct astra_ir_node **e)
{
	const char *op;
	if (nv->kind == IR_BIN && !strcmp(nv->s, "+") && nv->nr == 2) {
		if (nv->a[0] == old) {
			*e = nv->a[1];
			return "sum";
		}
		if (nv->a[1] == old) {
			*e = nv->a[0];
			return "sum";
		}
	}
	if (nv->kind == IR_CALL && nv->nr == 2 && (op = lift_reduce_op(nv->s)) != NULL) {
		if (nv->a[0] == old) {
			*e = nv->a[1];
			return op;
		}
		if (nv->a[1] == old) {
			*e = nv->a[0];
			return op;
		}
	}
	return NULL;
}

/*
 * 0.2, 1e-3, 2.5L: a floating literal that is not a float's (no f suffix)
 * and whose value another type may not hold (-128.0 ... 127.0 are
 * the same in every arithmetic type: `float s = 0.0;` stays a sum's zero).
 */
static int wide_literal(const char *s)
{
	size_t n = strlen(s);
	double d;
	if (!n || s[n - 1] == 'f' || s[n - 1] == 'F' || (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
		return 0;
	if (!strchr(s, '.') && !strchr(s, 'e') && !strchr(s, 'E'))
		return 0;
	d = strtod(s, NULL);
	return !(d == (double)(long)d && d >= -128 && d <= 127);
}

/*
 * The value a local of its declared type holds.  The IR drops conversions,
 * but not this one: `float c11; c11 = +0.2;` holds (float)0.2, and a
 * lowering that puts the value where the local was read must compute
 * with that, not with the double 0.2 (PolyBench's convolution-2d: in
 * double its sums differ from the original's in the last bit, and the
 * verifier refused the candidate at 16384 x 16384).  A literal other than
 * a float's in a local not declared double (or auto) keeps its cast.
 */
static struct astra_ir_node *as_declared(struct lifter *L, const struct lvar *v, struct astra_ir_node *val)
{
	const struct astra_ir_node *n = val;
	const char *t = v->type;
	size_t len;
	while (n->kind == IR_UN && (!strcmp(n->s, "-") || !strcmp(n->s, "+")))
		n = n->a[0];
	if (!t || n->kind != IR_NUM || !wide_literal(n->s))
		return val;
	while (!strncmp(t, "const ", 6) || !strncmp(t, "volatile ", 9))
		t = strchr(t, ' ') + 1;
	len = strcspn(t, " ");
	if ((len == 6 && !strncmp(t, "double", 6)) || (len == 4 && !strncmp(t, "auto", 4)))
		return val;
	return astra_ir_node(L->ar, IR_CAST, astra_ir_strdup(L->ar, t, strlen(t)), 1, val);
}

static void assign_var(struct lifter *L, struct lvar *v, const char *op, struct astra_ir_node *rhs)
{
	int reads = v->loop_reads;
	struct astra_ir_node *val = lift_eval(L, rhs), *e;
	const char *how;
	if (!strcmp(op, "=")) {
		val = lift_bind(L, as_declared(L, v, val));
	} else {
		char bop[4];
		if (!v->val)
			lift_fail(L, "`%s` is used before it is set", v->name);
		snprintf(bop, sizeof(bop), "%.*s", (int)(strlen(op) - 1), op);
		val = astra_ir_node(L->ar, IR_BIN, astra_ir_strdup(L->ar, bop, strlen(bop)), 2, v->val, val);
	}
	if (L->nr_loops && !L->in_shfl && v->loop_depth < L->nr_loops && !v->shared) {
		if (!v->val)
			lift_fail(L, "`%s` is set in a loop before it has a value", v->name);
		v->loop_reads = reads;
		if (reads)
			lift_fail(L, "reads `%s` in the loop before it accumulates there (a scan)", v->name);
		how = combination(val, v->val, &e);
		if (!how)
			lift_fail(L, "the loop changes `%s` in a way that is not a sum, max or min", v->name);
		accumulate(L, v, how, e);
		return;
	}
	v->val = val;
}

/* sh = rhs, or sh[a][b] = rhs (lhs the index chain): the shared value, and where this thread put it. */
static void store_shared(struct lifter *L, struct lvar *v, struct astra_ir_node *lhs, const char *op,
			 struct astra_ir_node *rhs)
{
	struct astra_ir_node *val, *ix = NULL;
	const char *place = NULL;
	if (strcmp(op, "="))
		lift_fail(L, "`%s %s` on shared memory outside a reduction tree", v->name, op);
	val = lift_eval(L, rhs);
	if (lhs) {
		place = lift_shared_place(L, lhs, &ix);
		v->warp_slots = ix->kind == IR_ATOM && !strcmp(ix->s, "warp");
	}
	v->val = val;
	v->at = val->kind == IR_RED || val->kind == IR_PARTIAL ? NULL : place;
	v->nr_stored++;
	v->barrier_at = L->barriers;
}

/*
 * out[p] += e (or out[p] = out[p] + e) inside a thread's own loop, at a
 * place p that does not depend on the loop's axis (k of a contraction, or
 * the columns of a thread per row): the running value is the element
 * itself.  The element becomes its value before the loop, the seed, plus
 * the sum over the axis of e.  Nothing in the loop may read the element
 * again (lift.c's deref refuses it).  Returns 0 when p depends on the
 * axis (an ordinary store, for the caller).
 */
static int accumulate_store(struct lifter *L, struct astra_ir_node *e)
{
	struct loopctx *lp = inner(L);
	struct astra_ir_node *lhs = e->a[0], *ptr, *old, *x, *r;
	char *ot, *t;
	size_t j;
	if (lhs->kind == IR_INDEX)
		ptr = lift_eval(L, astra_ir_node(L->ar, IR_UN, "&", 1, lhs));
	else if (lhs->kind == IR_UN && !strcmp(lhs->s, "*"))
		ptr = lift_eval(L, lhs->a[0]);
	else
		return 0;
	if (ptr->kind != IR_PTR || lift_depends(lift_bind(L, ptr->a[0]), lp->axis)) {
		if (!strcmp(lp->axis, "k"))
			lift_fail(L, "a store inside the loop over k at a place that depends on k");
		return 0;
	}
	old = lift_eval(L, lhs);
	if (!strcmp(e->s, "+=")) {
		x = lift_eval(L, e->a[1]);
	} else if (!strcmp(e->s, "=")) {
		struct astra_ir_node *v = lift_eval(L, e->a[1]);
		x = NULL;
		if (v->kind == IR_BIN && !strcmp(v->s, "+")) {
			ot = lift_text(old);
			for (j = 0; j < 2 && !x; j++) {
				t = lift_text(v->a[j]);
				if (v->a[j] == old || !strcmp(t, ot))
					x = v->a[1 - j];
				free(t);
			}
			free(ot);
		}
		if (!x && !lift_depends(v, lp->axis) && !lift_depends(v, "k"))
			return 0;   /* the same value every iteration: an ordinary store */
	} else {
		x = NULL;
	}
	if (!x)
		lift_fail(L, "a store inside the loop over %s at one place that is not an accumulation `out[...] += ...`",
			  lp->axis);
	if (lift_depends(old, lp->axis))
		lift_fail(L, "an accumulation inside the loop over %s into a place that depends on it", lp->axis);
	if (is_zero(old))
		r = astra_ir_node(L->ar, IR_RED, "sum", 1, x);
	else
		r = astra_ir_node(L->ar, IR_RED, "sum", 2, x, old);
	r->axis = lp->axis;
	r->scope = IR_SCOPE_THREAD;
	lift_store(L, lhs, r, 0);
	j = L->ir->nr_stores - 1;   /* lift_store appends */
	L->ir->stores[j].open_loop = L->nr_loops;
	return 1;
}

static void expr_stmt(struct lifter *L, struct astra_ir_node *e)
{
	struct lvar *v;
	const char *n;
	if (e->kind == IR_ASSIGN) {
		struct astra_ir_node *lhs = e->a[0];
		if ((n = name_of(lhs)) != NULL) {
			if (!(v = lift_var(L, n)))
				lift_fail(L, "assigns `%s`, which is not a local variable", n);
			if (v->shared)
				store_shared(L, v, NULL, e->s, e->a[1]);
			else
				assign_var(L, v, e->s, e->a[1]);
			return;
		}
		if (lhs->kind == IR_INDEX && (v = lift_shared_base(L, lhs)) != NULL) {
			store_shared(L, v, lhs, e->s, e->a[1]);
			return;
		}
		if (inner(L) && inner(L)->kind == LOOP_SEQ && !inner(L)->rows && accumulate_store(L, e))
			return;
		if (!strcmp(e->s, "=")) {
			lift_store(L, lhs, lift_eval(L, e->a[1]), 0);
		} else {
			char bop[4];
			snprintf(bop, sizeof(bop), "%.*s", (int)(strlen(e->s) - 1), e->s);
			lift_store(L, lhs, astra_ir_node(L->ar, IR_BIN, astra_ir_strdup(L->ar, bop, strlen(bop)), 2,
							  lift_eval(L, lhs), lift_eval(L, e->a[1])), 0);
		}
		return;
	}
	if (e->kind == IR_INCDEC && (n = name_of(e->a[0])) && (v = lift_var(L, n))) {
		assign_var(L, v, e->s[0] == '+' ? "+=" : "-=", lift_num(L, "1"));
		return;
	}
	if (e->kind == IR_CALL) {
		if (!strcmp(e->s, "__syncthreads")) {
			L->barriers++;
			return;
		}
		if (!strcmp(e->s, "__syncwarp") || !strcmp(e->s, "__threadfence"))
			return;
		/* cooperative groups: cg::sync(block) and block.sync() are __syncthreads() */
		if ((!strcmp(e->s, "cg::sync") || !strcmp(e->s, "cooperative_groups::sync") || !strcmp(e->s, ".sync")) &&
		    e->nr == 1) {
			if (!lift_block_group(L, lift_eval(L, e->a[0])))
				lift_fail(L, "a `%s` of a group that is not the thread block (cg::this_thread_block())", e->s);
			L->barriers++;
			return;
		}
		if (!strcmp(e->s, "atomicAdd") && e->nr == 2) {
			lift_store(L, astra_ir_node(L->ar, IR_UN, "*", 1, e->a[0]), lift_eval(L, e->a[1]), 1);
			return;
		}
		lift_fail(L, "a call whose effect is not modelled: `%s`", e->s);
	}
	lift_fail(L, "a statement whose effect is not modelled");
}

/* Split cond at the top-level operator op ("&&" or "||"). */
static void split(struct astra_ir_node *c, const char *op, struct astra_ir_node **out, size_t *nr)
{
	if (c->kind == IR_BIN && !strcmp(c->s, op)) {
		split(c->a[0], op, out, nr);
		split(c->a[1], op, out, nr);
	} else if (*nr < 8) {
		out[(*nr)++] = c;
	}
}

void lift_set_extent(struct lifter *L, const struct astra_ir_node *a, struct astra_ir_node *bound)
{
	struct astra_ir_node **slot = !strcmp(a->s, "i") ? &L->ext_i : !strcmp(a->s, "r") ? &L->ext_r :
				      !strcmp(a->s, "k") ? &L->ext_k : &L->ext_c;
	if (!*slot)
		*slot = bound;
	else if (strcmp(lift_ext(L, *slot), lift_ext(L, bound)))
		lift_fail(L, "`%s` is checked against two bounds", a->s);
}

static int logical_atom(const struct astra_ir_node *n)
{
	return n->kind == IR_ATOM && (!strcmp(n->s, "i") || !strcmp(n->s, "r") || !strcmp(n->s, "c"));
}

/*
 * A lower bound `idx >= L`, `idx > L` (in: 1) or `idx < L`, `idx <= L`
 * (in: 0, an early return), either way round: the first index of the
 * logical axis (a stencil's border rows and columns are left alone).
 */
static int lower_bound(struct lifter *L, struct astra_ir_node *c, int in)
{
	static const char *const ops[][3] = {
		/* op, flipped, inclusive (idx op L): 1 starts at L, 0 at L + 1 */
		{">=", "<=", "1"}, {">", "<", "0"},
	};
	struct astra_ir_node *a, *b, *lo, **slot;
	size_t j;
	int side;
	if (c->kind != IR_BIN)
		return 0;
	for (j = 0; j < 2; j++)
		for (side = 0; side < 2; side++) {
			/* in: `idx >= L`; a return: its negation `idx < L` (or `L > idx`) */
			const char *op = in ? (side ? ops[j][1] : ops[j][0]) : (side ? (j ? ">=" : ">") : (j ? "<=" : "<"));
			if (strcmp(c->s, op))
				continue;
			a = lift_bind(L, lift_eval(L, c->a[side]));
			b = c->a[1 - side];
			if (!logical_atom(a))
				continue;
			lo = lift_eval(L, b);
			if (lift_depends(lo, "r") || lift_depends(lo, "c") || lift_depends(lo, "i"))
				return 0;
			if (!strcmp(ops[j][2], "0"))
				lo = astra_ir_node(L->ar, IR_BIN, "+", 2, lo, lift_num(L, "1"));
			slot = !strcmp(a->s, "r") ? &L->lo_r : !strcmp(a->s, "c") ? &L->lo_c : &L->lo_i;
			if (*slot && strcmp(lift_ext(L, *slot), lift_ext(L, lo)))
				lift_fail(L, "`%s` is checked against two lower bounds", a->s);
			*slot = lo;
			return 1;
		}
	return 0;
}

/* A bound check `idx < B` (in: 1) or `idx >= B` (in: 0): sets the extent. */
static int bound(struct lifter *L, struct astra_ir_node *c, int in)
{
	struct astra_ir_node *a, *b;
	const char *lt = in ? "<" : ">=", *gt = in ? ">" : "<=";
	if (c->kind != IR_BIN)
		return 0;
	if (!strcmp(c->s, lt)) {
		a = lift_bind(L, lift_eval(L, c->a[0]));
		b = c->a[1];
	} else if (!strcmp(c->s, gt)) {
		a = lift_bind(L, lift_eval(L, c->a[1]));
		b = c->a[0];
	} else {
		return lower_bound(L, c, in);
	}
	if (L->ir->mapping == IR_MAP_BLOCK && a->kind == IR_ATOM && !strcmp(a->s, "tid.x") && !L->nr_loops) {
		/* one element per thread: the column bound */
		a = astra_ir_node(L->ar, IR_ATOM, "c", 0);
		L->ir->one_per_thread = 1;
		L->uses_c = 1;
	}
	if (!logical_atom(a))
		return lower_bound(L, c, in);
	lift_set_extent(L, a, lift_eval(L, b));
	return 1;
}

/* A thread's role in a group: threadIdx.x == 0, lane == 0, warp == 0, lane < nwarps. */
static int role(struct lifter *L, struct astra_ir_node *c)
{
	struct astra_ir_node *a;
	if (c->kind != IR_BIN || (strcmp(c->s, "==") && strcmp(c->s, "<")))
		return 0;
	a = lift_bind(L, lift_eval(L, c->a[0]));
	if (a->kind != IR_ATOM || (strcmp(a->s, "tid.x") && strcmp(a->s, "lane") && strcmp(a->s, "warp")))
		return 0;
	if (!strcmp(c->s, "=="))
		return is_zero(lift_eval(L, c->a[1]));
	return 1;
}

static int only_return(struct astra_ir_stmt *s)
{
	while (s && s->kind == ST_BLOCK && s->nr_kids == 1)
		s = s->kids[0];
	return s && s->kind == ST_RETURN && !s->init;
}

static struct astra_ir_stmt *single(struct astra_ir_stmt *s)
{
	while (s && s->kind == ST_BLOCK && s->nr_kids == 1)
		s = s->kids[0];
	return s;
}

/*
 * if (cond) x = v;  outside loops, on any condition (data: correlation's
 * `if (std[j] <= EPS) std[j] = 1.0;`): a select, x = cond ? v : x.  x is
 * a local variable with a value, or a place the kernel stored before in
 * this thread (so the original writes it either way: the select adds no
 * write).
 */
static void select_stmt(struct lifter *L, struct astra_ir_stmt *s, struct astra_ir_node *asg)
{
	struct astra_ir_node *lhs = asg->a[0], *cond, *val;
	struct lvar *v;
	const char *n = name_of(lhs);
	if (n) {
		if (!(v = lift_var(L, n)) || v->shared || !v->val)
			lift_fail(L, "a branch on data around an assignment of `%s`, which has no value before it: `%s`", n,
				  s->text);
		cond = lift_eval(L, s->e);
		val = lift_eval(L, asg->a[1]);
		v->val = astra_ir_node(L->ar, IR_COND, NULL, 3, cond, val, v->val);
		return;
	}
	if (lhs->kind != IR_INDEX || lift_shared_base(L, lhs))
		lift_fail(L, "a branch on a condition that is not a bounds check or a thread's role: `%s`", s->text);
	if (!lift_stored(L, lhs))
		lift_fail(L, "a branch on data around a store to a place the kernel did not store before (a write only some "
			     "threads do): `%s`", s->text);
	cond = lift_eval(L, s->e);
	val = lift_eval(L, asg->a[1]);
	lift_store(L, lhs, astra_ir_node(L->ar, IR_COND, NULL, 3, cond, val, lift_eval(L, lhs)), 0);
}

static void if_stmt(struct lifter *L, struct astra_ir_stmt *s)
{
	struct astra_ir_node *parts[8];
	struct astra_ir_stmt *one;
	size_t nr = 0, j;
	int ok = 1;
	if (only_return(s->body) && !s->els) {
		split(s->e, "||", parts, &nr);
		for (j = 0; j < nr && ok; j++)
			ok = bound(L, parts[j], 0);
		if (!ok)
			lift_fail(L, "an early return on a condition that is not a bounds check: `%s`", s->text);
		if (L->nr_loops)
			lift_fail(L, "an early return inside a loop");
		return;
	}
	/* if (x > m) m = x;  a max (or min) inside a loop */
	one = single(s->body);
	if (L->nr_loops && !s->els && one && one->kind == ST_EXPR && one->e->kind == IR_ASSIGN &&
	    !strcmp(one->e->s, "=") && s->e->kind == IR_BIN && name_of(one->e->a[0])) {
		struct lvar *v = lift_var(L, name_of(one->e->a[0]));
		const char *c = s->e->s, *var = name_of(one->e->a[0]);
		const char *l = name_of(s->e->a[0]), *r = name_of(s->e->a[1]);
		const char *op = NULL;
		struct astra_ir_node *e = NULL;
		if (r && !strcmp(r, var) && (!strcmp(c, ">") || !strcmp(c, ">=")))
			op = "max", e = s->e->a[0];
		else if (r && !strcmp(r, var) && (!strcmp(c, "<") || !strcmp(c, "<=")))
			op = "min", e = s->e->a[0];
		else if (l && !strcmp(l, var) && (!strcmp(c, "<") || !strcmp(c, "<=")))
			op = "max", e = s->e->a[1];
		else if (l && !strcmp(l, var) && (!strcmp(c, ">") || !strcmp(c, ">=")))
			op = "min", e = s->e->a[1];
		if (op && v && v->loop_depth < L->nr_loops) {
			struct astra_ir_node *x = lift_eval(L, e), *y = lift_eval(L, one->e->a[1]);
			if (lift_ext(L, x) == lift_ext(L, y) || !strcmp(lift_ext(L, x), lift_ext(L, y))) {
				accumulate(L, v, op, x);
				return;
			}
		}
	}
	if (!s->els) {
		split(s->e, "&&", parts, &nr);
		for (j = 0; j < nr && ok; j++)
			ok = bound(L, parts[j], 1);
		if (ok) {
			lift_stmt(L, s->body, 0);
			return;
		}
		if (nr == 1 && role(L, s->e)) {
			lift_stmt(L, s->body, 0);
			return;
		}
	}
	if (!s->els && !L->nr_loops && one && one->kind == ST_EXPR && one->e->kind == IR_ASSIGN && !strcmp(one->e->s, "=")) {
		select_stmt(L, s, one->e);
		return;
	}
	lift_fail(L, "a branch on a condition that is not a bounds check or a thread's role: `%s`", s->text);
}

/* The loop's variable, start, bound and step; 0 when the header is not `v = a; v OP b; v STEP`. */
struct header {
	const char *var;
	struct astra_ir_node *init, *bound, *step;
	const char *cmp, *how;       /* "<" ">" ...; "+=", "*=", "/=", ">>=", "<<=" */
};

static int header(struct astra_ir_stmt *s, struct header *h)
{
	struct astra_ir_node *st = s->step, *c = s->e;
	memset(h, 0, sizeof(*h));
	if (!s->first || !c || !st)
		return 0;
	if (s->first->kind == ST_DECL && s->first->init) {
		h->var = s->first->name;
		h->init = s->first->init;
	} else if (s->first->kind == ST_EXPR && s->first->e->kind == IR_ASSIGN && !strcmp(s->first->e->s, "=") &&
		   name_of(s->first->e->a[0])) {
		h->var = name_of(s->first->e->a[0]);
		h->init = s->first->e->a[1];
	} else {
		return 0;
	}
	if (c->kind != IR_BIN || !name_of(c->a[0]) || strcmp(name_of(c->a[0]), h->var))
		return 0;
	h->cmp = c->s;
	h->bound = c->a[1];
	if (st->kind == IR_INCDEC && name_of(st->a[0]) && !strcmp(name_of(st->a[0]), h->var)) {
		h->how = st->s[0] == '+' ? "+=" : "-=";
		h->step = NULL;
		return 1;
	}
	if (st->kind != IR_ASSIGN || !name_of(st->a[0]) || strcmp(name_of(st->a[0]), h->var))
		return 0;
	if (strcmp(st->s, "=")) {
		h->how = st->s;
		h->step = st->a[1];
		return 1;
	}
	/* v = v OP x */
	if (st->a[1]->kind == IR_BIN && name_of(st->a[1]->a[0]) && !strcmp(name_of(st->a[1]->a[0]), h->var)) {
		static const char *const ops[][2] = {{"+", "+="}, {"*", "*="}, {"/", "/="}, {">>", ">>="}, {"<<", "<<="}};
		size_t j;
		for (j = 0; j < 5; j++)
			if (!strcmp(st->a[1]->s, ops[j][0])) {
				h->how = ops[j][1];
				h->step = st->a[1]->a[1];
				return 1;
			}
	}
	return 0;
}

static int mentions(const struct astra_ir_node *n, const char *fn_prefix)
{
	size_t j;
	if (!n)
		return 0;
	if (n->kind == IR_CALL && !strncmp(n->s, fn_prefix, strlen(fn_prefix)))
		return 1;
	for (j = 0; j < n->nr; j++)
		if (mentions(n->a[j], fn_prefix))
			return 1;
	return 0;
}

static int stmt_mentions(const struct astra_ir_stmt *s, const char *fn_prefix)
{
	size_t j;
	if (!s)
		return 0;
	if (mentions(s->e, fn_prefix) || mentions(s->init, fn_prefix) || mentions(s->step, fn_prefix))
		return 1;
	if (stmt_mentions(s->first, fn_prefix) || stmt_mentions(s->body, fn_prefix) || stmt_mentions(s->els, fn_prefix))
		return 1;
	for (j = 0; j < s->nr_kids; j++)
		if (stmt_mentions(s->kids[j], fn_prefix))
			return 1;
	return 0;
}

static int step_is(struct lifter *L, const struct header *h, const char *how, const char *amount)
{
	return !strcmp(h->how, how) && h->step && lift_is(lift_eval(L, h->step), amount);
}

/* for (off = 16; off > 0; off /= 2) v += __shfl_xor_sync(mask, v, off);  (or max/min, down, 1..32) */
static void shuffle_loop(struct lifter *L, struct astra_ir_stmt *s, const struct header *h)
{
	struct astra_ir_node **old;
	struct astra_ir_node *init = lift_eval(L, h->init), *e = NULL;
	struct lvar *changed = NULL, *off;
	size_t saved = L->nr_vars, j;
	const char *op;
	int halving = lift_is(init, "16") && (!strcmp(h->cmp, ">") || !strcmp(h->cmp, ">=")) &&
		      (step_is(L, h, "/=", "2") || step_is(L, h, ">>=", "1"));
	int doubling = lift_is(init, "1") && !strcmp(h->cmp, "<") && lift_is(lift_eval(L, h->bound), "32") &&
		       (step_is(L, h, "*=", "2") || step_is(L, h, "<<=", "1"));
	if (!halving && !doubling)
		lift_fail(L, "a shuffle loop that does not cover a warp's 32 lanes: `%s`", s->text);
	old = astra_ir_alloc(L->ar, (saved + 1) * sizeof(*old));   /* the arena: lift_fail longjmps */
	for (j = 0; j < saved; j++)
		old[j] = L->vars[j].val;
	off = lift_declare(L, h->var);
	off->val = astra_ir_node(L->ar, IR_ATOM, "off", 0);
	L->in_shfl++;
	lift_stmt(L, s->body, 0);
	L->in_shfl--;
	L->nr_vars = saved;
	for (j = 0; j < saved; j++)
		if (L->vars[j].val != old[j]) {
			if (changed)
				lift_fail(L, "a shuffle loop that changes two variables");
			changed = &L->vars[j];
		}
	if (!changed)
		lift_fail(L, "a shuffle loop that changes no variable");
	op = combination(changed->val, old[changed - L->vars], &e);
	if (!op || e->kind != IR_CALL || strcmp(e->s, "__shfl") || e->a[0] != old[changed - L->vars] ||
	    e->a[1]->kind != IR_ATOM || strcmp(e->a[1]->s, "off"))
		lift_fail(L, "a shuffle loop that is not a sum, max or min of `%s` and its shuffled value", changed->name);
	changed->val = lift_combine(L, op, IR_SCOPE_WARP, old[changed - L->vars]);
}

/* for (s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sh[tid] += sh[tid + s]; __syncthreads(); } */
static void tree_loop(struct lifter *L, struct astra_ir_stmt *s, const struct header *h)
{
	struct astra_ir_stmt *b = s->body, *iff = NULL, *as;
	struct astra_ir_node *e;
	struct lvar *v;
	const char *op = NULL, *n;
	size_t j;
	if (!(!strcmp(h->cmp, ">") || !strcmp(h->cmp, "!=")) || !(!strcmp(h->how, ">>=") || !strcmp(h->how, "/=")))
		lift_fail(L, "a shared-memory reduction loop that does not halve to 0: `%s`", s->text);
	for (j = 0; b && j < (b->kind == ST_BLOCK ? b->nr_kids : 1); j++) {
		struct astra_ir_stmt *k = b->kind == ST_BLOCK ? b->kids[j] : b;
		if (k->kind == ST_IF && !iff)
			iff = k;
		else if (!(k->kind == ST_EMPTY || (k->kind == ST_EXPR && (mentions(k->e, "__sync") || mentions(k->e, "cg::sync") ||
									   mentions(k->e, ".sync")))))
			lift_fail(L, "a shared-memory reduction loop does more than combine: `%s`", k->text);
	}
	as = iff ? single(iff->body) : NULL;
	if (!as || as->kind != ST_EXPR || as->e->kind != IR_ASSIGN || as->e->a[0]->kind != IR_INDEX ||
	    !(n = name_of(as->e->a[0]->a[0])) || !(v = lift_var(L, n)) || !v->shared)
		lift_fail(L, "a reduction loop whose step is not `sh[tid] op= sh[tid + s]`: `%s`", s->text);
	e = as->e->a[1];
	if (!strcmp(as->e->s, "+="))
		op = "sum";
	else if (!strcmp(as->e->s, "=") && e->kind == IR_CALL)
		op = lift_reduce_op(e->s);
	else if (!strcmp(as->e->s, "=") && e->kind == IR_BIN && !strcmp(e->s, "+"))
		op = "sum";
	if (!op)
		lift_fail(L, "a shared-memory reduction that is not a sum, max or min: `%s`", iff->text);
	if (!v->val)
		lift_fail(L, "a shared-memory reduction of `%s` before anything is stored in it", v->name);
	v->val = lift_combine(L, op, IR_SCOPE_BLOCK, v->val);
	v->warp_slots = 0;
}

/* Is n the shared array v at an index whose canonical text is t? */
static int shared_at(struct lifter *L, struct astra_ir_node *n, struct lvar *v, const char *t)
{
	const char *nm;
	while (n->kind == IR_CAST)
		n = n->a[0];
	return n->kind == IR_INDEX && (nm = name_of(n->a[0])) && lift_var(L, nm) == v && lift_is(lift_eval(L, n->a[1]), t);
}

/* Is n the block's size: blockDim.x, or the launch's block as written? */
static int block_size(struct lifter *L, struct astra_ir_node *n)
{
	return lift_is(n, "bdim.x") || (L->k->pragma.block && lift_is(n, L->k->pragma.block));
}

/*
 * A tree whose stride doubles (interleaved addressing, cuda-samples'
 * reduce0 and reduce1):
 *   for (s = 1; s < blockDim.x; s *= 2) { if (tid % (2 * s) == 0) sh[tid] += sh[tid + s]; __syncthreads(); }
 *   (or `(tid & (2 * s - 1)) == 0`, the same for s a power of two)
 *   for (s = 1; s < blockDim.x; s *= 2) {
 *           int j = 2 * s * tid; if (j < blockDim.x) sh[j] += sh[j + s]; __syncthreads(); }
 * sh[0] ends with the whole block's combination when the block is a power
 * of two (else the last steps read past it): the launch's block must be one.
 */
static void doubling_tree(struct lifter *L, struct astra_ir_stmt *s, const struct header *h)
{
	struct astra_ir_stmt *b = s->body, *iff = NULL, *as;
	struct astra_ir_node *e, *cond, *tgt, *sn, *two_s;
	struct lvar *v = NULL, *sv;
	size_t saved = L->nr_vars, j;
	const char *op = NULL, *n;
	char *tt = NULL, *want = NULL;
	long blk;
	int ok = 0;
	if (!lift_is(lift_eval(L, h->init), "1") || !(step_is(L, h, "*=", "2") || step_is(L, h, "<<=", "1")) ||
	    !block_size(L, lift_eval(L, h->bound)))
		lift_fail(L, "a shared-memory tree whose stride doubles, but not from 1 to the block's size: `%s`", s->text);
	if (!L->k->pragma.block || !lift_int(L, L->k->pragma.block, &blk) || blk <= 0 || (blk & (blk - 1)))
		lift_fail(L, "a shared-memory tree whose stride doubles combines the whole block only when the block is a "
			  "power of two, and the pragma's launch gives %s", L->k->pragma.block ? L->k->pragma.block : "no block");
	sv = lift_declare(L, h->var);
	sv->val = sn = astra_ir_node(L->ar, IR_ATOM, "tree.s", 0);
	two_s = astra_ir_node(L->ar, IR_BIN, "*", 2, lift_num(L, "2"), sn);
	for (j = 0; b && j < (b->kind == ST_BLOCK ? b->nr_kids : 1); j++) {
		struct astra_ir_stmt *k = b->kind == ST_BLOCK ? b->kids[j] : b;
		if (k->kind == ST_IF && !iff && !k->els)
			iff = k;
		else if (k->kind == ST_DECL && !iff && !k->is_shared && !k->is_array && k->init)
			lift_declare(L, k->name)->val = lift_eval(L, k->init);
		else if (!(k->kind == ST_EMPTY || (k->kind == ST_EXPR && (mentions(k->e, "__sync") || mentions(k->e, "cg::sync") ||
									   mentions(k->e, ".sync")))))
			lift_fail(L, "a shared-memory reduction loop does more than combine: `%s`", k->text);
	}
	as = iff ? single(iff->body) : NULL;
	if (as && as->kind == ST_EXPR && as->e->kind == IR_ASSIGN && as->e->a[0]->kind == IR_INDEX &&
	    (n = name_of(as->e->a[0]->a[0])) && (v = lift_var(L, n)) && v->shared && !v->warp_slots) {
		tgt = lift_eval(L, as->e->a[0]->a[1]);
		tt = lift_text(tgt);
		want = lift_text(astra_ir_node(L->ar, IR_BIN, "+", 2, tgt, sn));
		e = as->e->a[1];
		if (!strcmp(as->e->s, "+=") && shared_at(L, e, v, want))
			op = "sum";
		else if (!strcmp(as->e->s, "=") && e->nr == 2 && shared_at(L, e->a[0], v, tt) && shared_at(L, e->a[1], v, want))
			op = e->kind == IR_BIN && !strcmp(e->s, "+") ? "sum" : e->kind == IR_CALL ? lift_reduce_op(e->s) : NULL;
		cond = lift_eval(L, iff->e);
		/* tid % (2 * s) == 0 (or tid & (2 * s - 1)) at sh[tid]; or j < blockDim.x at sh[j], j = 2 * s * tid */
		if (op && cond->kind == IR_BIN && !strcmp(cond->s, "==") && !strcmp(tt, "tid.x")) {
			char *t2 = lift_text(two_s), *t3 = lift_text(lift_bin(L, "-", two_s, lift_num(L, "1")));
			for (j = 0; j < 2 && !ok; j++) {
				struct astra_ir_node *m = cond->a[j], *z = cond->a[1 - j];
				ok = lift_is(z, "0") && m->kind == IR_BIN && lift_is(m->a[0], "tid.x") &&
				     ((!strcmp(m->s, "%") && lift_is(m->a[1], t2)) || (!strcmp(m->s, "&") && lift_is(m->a[1], t3)));
			}
			free(t2);
			free(t3);
		}
		if (op && !ok && cond->kind == IR_BIN && !strcmp(cond->s, "<") && lift_is(cond->a[0], tt) &&
		    block_size(L, cond->a[1])) {
			char *t2 = lift_text(astra_ir_node(L->ar, IR_BIN, "*", 2, two_s, astra_ir_node(L->ar, IR_ATOM, "tid.x", 0)));
			ok = !strcmp(tt, t2);
			free(t2);
		}
	}
	free(tt);
	free(want);
	if (!ok)
		lift_fail(L, "a doubling tree whose step is not `if (tid %% (2 * s) == 0) sh[tid] += sh[tid + s]` or "
			  "`if (2 * s * tid < blockDim.x) sh[2 * s * tid] += sh[2 * s * tid + s]`: `%s`", s->text);
	if (!v->val || !v->at || strcmp(v->at, "[tid.x]"))
		lift_fail(L, "a shared-memory tree over `%s`, where this thread did not store its value at [threadIdx.x]", v->name);
	L->nr_vars = saved;
	v->val = lift_combine(L, op, IR_SCOPE_BLOCK, v->val);
	v->warp_slots = 0;
}

static void for_stmt(struct lifter *L, struct astra_ir_stmt *s)
{
	struct header h;
	struct astra_ir_node *init, *step, *lim;
	struct loopctx *lp;
	struct lvar *var;
	size_t saved = L->nr_vars, j;
	int kind;
	const char *axis;
	if (s->step && s->step->kind == IR_BIN && !strcmp(s->step->s, ","))
		lift_fail(L, "a loop that steps two variables at once is not modelled: `%s`", s->text);
	if (!header(s, &h))
		lift_fail(L, "a loop whose header is not `v = start; v < bound; v += step`: `%s`", s->text);
	if (stmt_mentions(s->body, "__shfl")) {
		shuffle_loop(L, s, &h);
		return;
	}
	if (strcmp(h.cmp, "<") && strcmp(h.cmp, "<=")) {
		tree_loop(L, s, &h);
		return;
	}
	if (strcmp(h.cmp, "<"))
		lift_fail(L, "a loop bound with `%s`: `%s`", h.cmp, s->text);
	if (L->nr_loops >= 7)
		lift_fail(L, "loops nested too deep");
	init = lift_bind(L, lift_eval(L, h.init));
	step = h.step ? lift_bind(L, lift_eval(L, h.step)) : lift_num(L, "1");
	lim = lift_eval(L, h.bound);
	if ((!strcmp(h.how, "*=") || !strcmp(h.how, "<<=")) &&
	    (stmt_mentions(s->body, "__sync") || stmt_mentions(s->body, "cg::sync") || stmt_mentions(s->body, ".sync"))) {
		doubling_tree(L, s, &h);
		return;
	}
	if (strcmp(h.how, "+="))
		lift_fail(L, "a loop that does not count up: `%s`", s->text);
	if (lift_tile_loop(L, init, step, lim, s->text)) {
		/* a thread's rows of a 2-D tile: part of the mapping (lift-tile.c) */
		if (L->ir->mapping != IR_MAP_NONE && L->ir->mapping != IR_MAP_2D && L->ir->mapping != IR_MAP_2D_TILE)
			lift_fail(L, "a loop over a tile's rows in a kernel mapped as %s: `%s`",
				  astra_ir_mapping_name(L->ir->mapping), s->text);
		L->ir->mapping = IR_MAP_2D_TILE;
		L->tile_t = lim;
		L->tile_rows = lift_ext(L, lim);
		L->tile_var = h.var;
		kind = LOOP_SEQ;
		axis = "r";
		var = lift_declare(L, h.var);
		var->val = astra_ir_node(L->ar, IR_ATOM, "tile.row", 0);
		lp = &L->loops[L->nr_loops++];
		memset(lp, 0, sizeof(*lp));
		lp->axis = axis;
		lp->kind = kind;
		lp->rows = 1;
		lift_stmt(L, s->body, 0);
		L->nr_loops--;
		L->nr_vars = saved;
		L->tile_t = NULL;
		return;
	}
	if (lift_is(init, "0") && lift_is(step, "1") && L->ir->mapping == IR_MAP_2D) {
		/* a thread of a 2-D grid owns out[r, c]: its own loop is a contraction's inner axis */
		for (j = 0; j < (size_t)L->nr_loops; j++)
			if (!strcmp(L->loops[j].axis, "k"))
				lift_fail(L, "nested loops inside a thread of a 2-D grid: `%s`", s->text);
		kind = LOOP_SEQ;
		axis = "k";
	} else if (lift_is(init, "0") && lift_is(step, "1") && L->nr_loops && !strcmp(L->loops[L->nr_loops - 1].axis, "c") &&
		   L->loops[L->nr_loops - 1].kind == LOOP_SEQ && L->ir->mapping == IR_MAP_THREAD) {
		/* a thread per row's own loop inside its loop over the columns: out[r, c]'s inner axis (a contraction) */
		for (j = 0; j < (size_t)L->nr_loops; j++)
			if (!strcmp(L->loops[j].axis, "k"))
				lift_fail(L, "loops nested three deep inside a thread: `%s`", s->text);
		kind = LOOP_SEQ;
		axis = "k";
	} else if (lift_is(init, "0") && lift_is(step, "1")) {
		kind = LOOP_SEQ;
		axis = "c";
	} else if (lift_is(step, "1") && L->ir->mapping == IR_MAP_THREAD && !L->split && !L->nr_loops &&
		   (lift_is(init, "i") || (init->kind == IR_BIN && !strcmp(init->s, "+") &&
					   ((lift_is(init->a[0], "i") && init->a[1]->kind == IR_NUM) ||
					    (lift_is(init->a[1], "i") && init->a[0]->kind == IR_NUM))))) {
		/* a thread per row's loop over the columns from its own row on (`for (j2 = j1; ...)`): a triangle */
		if (L->lo_c)
			lift_fail(L, "two lower bounds on the columns: `%s`", s->text);
		L->lo_c = init;
		kind = LOOP_SEQ;
		axis = "c";
	} else if (lift_is(init, "tid.x") && (lift_is(step, "bdim.x") || (L->k->pragma.block && lift_is(step, L->k->pragma.block) && strcmp(L->k->pragma.block, "1")))) {
		if (L->ir->mapping == IR_MAP_2D_ROWS && L->lanes_x != 32)
			lift_fail(L, "2-D blocks whose x size is not a warp (32) is not modelled yet");
		if (L->ir->mapping != IR_MAP_BLOCK && L->ir->mapping != IR_MAP_2D_ROWS)
			lift_fail(L, "a loop spread over a block's threads, but no row per block: `%s`", s->text);
		kind = LOOP_SPREAD;
		axis = "c";
	} else if (init->kind == IR_ATOM && !strcmp(init->s, "lane") && lift_is(step, "32")) {
		if (L->ir->mapping != IR_MAP_WARP)
			lift_fail(L, "a loop over a warp's lanes, but no row per warp: `%s`", s->text);
		kind = LOOP_SPREAD;
		axis = "c";
	} else if (init->kind == IR_ATOM && !strcmp(init->s, "i") && lift_is(step, "bdim.x*gdim.x")) {
		L->ir->mapping = IR_MAP_GRID_STRIDE;
		kind = LOOP_GRID;
		axis = "i";
	} else if (init->kind == IR_ATOM && !strcmp(init->s, "r") && L->ir->mapping == IR_MAP_BLOCK &&
		   lift_is(step, "gdim.x")) {
		kind = LOOP_SEQ;
		axis = "r";
	} else {
		lift_fail(L, "a loop that is neither over a row's columns nor a grid-stride loop: `%s`", s->text);
	}
	if (!strcmp(axis, "c")) {
		for (j = 0; j < (size_t)L->nr_loops; j++)
			if (!strcmp(L->loops[j].axis, "c"))
				lift_fail(L, "nested loops over columns: `%s`", s->text);
		if (L->split)
			lift_fail(L, "a loop over columns in a kernel whose flat index is split into a row and a column");
		L->uses_c = 1;
		L->c_loop = 1;
	}
	lift_set_extent(L, &(struct astra_ir_node){.kind = IR_ATOM, .s = axis}, lim);
	var = lift_declare(L, h.var);
	var->val = astra_ir_node(L->ar, IR_ATOM, axis, 0);
	lp = &L->loops[L->nr_loops++];
	memset(lp, 0, sizeof(*lp));
	lp->axis = axis;
	lp->kind = kind;
	lp->rows = !strcmp(axis, "r");
	for (j = 0; j < L->nr_vars; j++)
		L->vars[j].loop_reads = 0;
	lift_stmt(L, s->body, 0);
	L->nr_loops--;
	L->nr_vars = saved;
	for (j = 0; j < L->nr_vars; j++)
		if (L->vars[j].acc_loop > L->nr_loops)
			L->vars[j].acc_loop = 0;
	for (j = 0; j < L->ir->nr_stores; j++)
		if (L->ir->stores[j].open_loop > L->nr_loops)
			L->ir->stores[j].open_loop = 0;
}

void lift_stmt(struct lifter *L, struct astra_ir_stmt *s, int top)
{
	size_t j;
	struct lvar *v;
	if (L->returned)
		return;
	if (!L->depth)
		L->line = s->line ? s->line : L->line;
	switch (s->kind) {
	case ST_EMPTY:
		return;
	case ST_BLOCK:
		for (j = 0; j < s->nr_kids && !L->returned; j++)
			lift_stmt(L, s->kids[j], top);
		return;
	case ST_DECL:
		if (s->is_array && !s->is_shared)
			lift_fail(L, "a local array (`%s`) is not modelled", s->name);
		v = lift_declare(L, s->name);
		v->type = s->type;
		v->shared = s->is_shared;
		v->array = s->is_array;
		if (s->init && s->is_pointer && s->init->kind == IR_CALL && !s->init->nr &&
		    !strcmp(s->init->s, "SharedMemory")) {
			/* T *p = SharedMemory<T>(): cuda-samples' struct whose conversion is the extern __shared__ array */
			v->shared = v->array = 1;
			return;
		}
		if (s->init)
			v->val = lift_bind(L, as_declared(L, v, lift_eval(L, s->init)));
		return;
	case ST_EXPR:
		expr_stmt(L, s->e);
		return;
	case ST_IF:
		if_stmt(L, s);
		return;
	case ST_FOR:
		for_stmt(L, s);
		return;
	case ST_RETURN:
		if (L->depth) {
			if (!s->init)
				lift_fail(L, "a helper returns no value");
			L->ret = lift_eval(L, s->init);
		} else if (L->nr_loops) {
			lift_fail(L, "a return inside a loop");
		}
		L->returned = 1;
		return;
	case ST_WHILE:
		lift_fail(L, "a while loop is not modelled yet: `%s`", s->text);
		return;
	case ST_BREAK:
	case ST_CONTINUE:
		lift_fail(L, "`%s` is not modelled", s->kind == ST_BREAK ? "break" : "continue");
		return;
	}
	(void)top;
}
