/*
 * lift.c - from the front end's kernel to the IR (see ir.h, lift.h):
 * values and expressions, the thread-to-work mappings, helpers inlined,
 * and the result put in its logical space.  Statements, loops and
 * reductions are lift-stmt.c's.
 */
#include "autoconfig.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/lift.h"
#include "ir/print.h"
#include "lib/util.h"

void lift_fail(struct lifter *L, const char *fmt, ...)
{
	va_list ap;
	astra_buf_reset(L->why);
	astra_buf_addf(L->why, "%s:%u: ", L->k->file ? L->k->file : "?", L->line ? L->line : L->k->line);
	if (L->helper)
		astra_buf_addf(L->why, "in the helper `%s`: ", L->helper);
	va_start(ap, fmt);
	astra_buf_vaddf(L->why, fmt, ap);
	va_end(ap);
	longjmp(L->fail, 1);
}

struct astra_ir_node *lift_num(struct lifter *L, const char *s)
{
	return astra_ir_node(L->ar, IR_NUM, s, 0);
}

struct astra_ir_node *lift_atom(struct lifter *L, const char *s)
{
	return astra_ir_node(L->ar, IR_ATOM, s, 0);
}

struct astra_ir_node *lift_bin(struct lifter *L, const char *op, struct astra_ir_node *a, struct astra_ir_node *b)
{
	return astra_ir_node(L->ar, IR_BIN, op, 2, a, b);
}

char *lift_text(const struct astra_ir_node *n)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	astra_ir_print_poly(n, &b);
	return astra_buf_detach(&b, NULL);
}

int lift_is(const struct astra_ir_node *n, const char *poly_text)
{
	char *t = lift_text(n);
	int r = !strcmp(t, poly_text);
	free(t);
	return r;
}

int lift_depends(const struct astra_ir_node *n, const char *a)
{
	size_t j;
	if (n->kind == IR_ATOM && !strcmp(n->s, a))
		return 1;
	if ((n->kind == IR_RED) && !strcmp(n->axis, a))
		return 0;
	for (j = 0; j < n->nr; j++)
		if (lift_depends(n->a[j], a))
			return 1;
	return 0;
}

struct lvar *lift_var(struct lifter *L, const char *name)
{
	size_t j;
	for (j = L->nr_vars; j-- > 0;)
		if (!strcmp(L->vars[j].name, name))
			return L->vars[j].alias ? L->vars[j].alias : &L->vars[j];
	return NULL;
}

struct lvar *lift_declare(struct lifter *L, const char *name)
{
	struct lvar *v;
	/* a fixed array: pointers to variables stay valid while helpers declare theirs */
	if (L->nr_vars >= L->alloc_vars)
		lift_fail(L, "more than %zu variables", L->alloc_vars);
	v = &L->vars[L->nr_vars++];
	memset(v, 0, sizeof(*v));
	v->name = name;
	v->loop_depth = L->nr_loops;
	return v;
}

/* Rebuild n with atom `from` replaced by `to` (axes of reductions too). */
static struct astra_ir_node *replace(struct lifter *L, struct astra_ir_node *n, const char *from, struct astra_ir_node *to)
{
	struct astra_ir_node *c;
	size_t j;
	if (n->kind == IR_ATOM && !strcmp(n->s, from))
		return to;
	if (!n->nr && !(n->axis && !strcmp(n->axis, from)))
		return n;
	c = astra_ir_alloc(L->ar, sizeof(*c));
	*c = *n;
	c->a = astra_ir_alloc(L->ar, (n->nr ? n->nr : 1) * sizeof(*c->a));
	for (j = 0; j < n->nr; j++)
		c->a[j] = replace(L, n->a[j], from, to);
	if (c->axis && !strcmp(c->axis, from) && to->kind == IR_ATOM)
		c->axis = to->s;
	return c;
}

struct astra_ir_node *lift_replace(struct lifter *L, struct astra_ir_node *n, const char *from, struct astra_ir_node *to)
{
	return replace(L, n, from, to);
}

/* A template or kernel parameter: a block = K of a row length K is a row, not a block size. */
static int is_param_name(struct lifter *L, const char *s)
{
	size_t j;
	for (j = 0; j < L->k->nr_tmpl; j++)
		if (!strcmp(L->k->tmpl_params[j], s))
			return 1;
	for (j = 0; j < L->k->nr_params; j++)
		if (!strcmp(L->k->params[j].name, s))
			return 1;
	return 0;
}

/* Rebuild n with the name `from` (a macro or parameter) replaced by `to`. */
static struct astra_ir_node *replace_name(struct lifter *L, struct astra_ir_node *n, const char *from,
					  struct astra_ir_node *to)
{
	struct astra_ir_node *c;
	size_t j;
	if (n->kind == IR_NAME && !strcmp(n->s, from))
		return to;
	if (!n->nr)
		return n;
	c = astra_ir_alloc(L->ar, sizeof(*c));
	*c = *n;
	c->a = astra_ir_alloc(L->ar, n->nr * sizeof(*c->a));
	for (j = 0; j < n->nr; j++)
		c->a[j] = replace_name(L, n->a[j], from, to);
	return c;
}

static void set_mapping(struct lifter *L, enum astra_ir_mapping m)
{
	if (L->ir->mapping == m || (L->ir->mapping == IR_MAP_THREAD && m == IR_MAP_WARP))
		L->ir->mapping = m;
	else if (L->ir->mapping == IR_MAP_NONE)
		L->ir->mapping = m;
	else if (L->ir->mapping == IR_MAP_2D_TILE && m == IR_MAP_2D)
		return;   /* the tile's column: a 2-D grid's */
	else if (!(L->ir->mapping == IR_MAP_GRID_STRIDE && m == IR_MAP_THREAD))
		lift_fail(L, "two mappings of threads to work: %s and %s", astra_ir_mapping_name(L->ir->mapping),
			  astra_ir_mapping_name(m));
}

/*
 * The known thread indices, as canonical text: a value equal to one is
 * replaced by its logical index (or the lane / warp of a thread).  Every
 * form recognized below holds tid.x, tid.y or i: a value without them is
 * returned as it is, unprinted (printing each subtree of a long
 * floating-point expression as a polynomial was most of a lift's time).
 */
static struct astra_ir_node *bind(struct lifter *L, struct astra_ir_node *v, int top)
{
	static const char *const lane[] = {
		"(tid.x)%(32)", "(tid.x)&(31)", "(i)%(32)", "(i)&(31)", NULL,
	};
	static const char *const warp[] = {"(tid.x)/(32)", "(tid.x)>>(5)", NULL};
	static const char *const warp_rows[] = {
		"(i)/(32)", "(i)>>(5)", "(bdim.x)/(32)*bid.x + (tid.x)/(32)", "(bdim.x)>>(5)*bid.x + (tid.x)>>(5)", NULL,
	};
	char *t;
	size_t j;
	if (top && L->tile_t)
		v = lift_tile_row(L, v);
	if (top && v->kind == IR_ATOM && !strcmp(v->s, "bid.x") && !L->twod) {
		set_mapping(L, IR_MAP_BLOCK);
		return lift_atom(L, "r");
	}
	if (v->kind == IR_ATOM || v->kind == IR_NUM || v->kind == IR_NAME)
		return v;
	if (!lift_depends(v, "tid.x") && !lift_depends(v, "tid.y") && !lift_depends(v, "i"))
		return v;
	if (v->kind == IR_BIN) {
		struct astra_ir_node *a = bind(L, v->a[0], 0), *b = bind(L, v->a[1], 0);
		if (a != v->a[0] || b != v->a[1])
			v = lift_bin(L, v->s, a, b);
	}
	t = lift_text(v);
	if (L->k->pragma.block && strcmp(t, "bdim.x*bid.x + tid.x") && !is_param_name(L, L->k->pragma.block)) {
		/* blockIdx.x * BLOCK_SIZE + threadIdx.x, BLOCK_SIZE the launch's block */
		struct astra_ir_node *w = replace_name(L, v, L->k->pragma.block, lift_atom(L, "bdim.x"));
		char *t2 = lift_text(w);
		if (!strcmp(t2, "bdim.x*bid.x + tid.x")) {
			free(t);
			t = t2;
		} else {
			free(t2);
		}
	}
	if (L->twod && (L->block_x || L->block_y) && strcmp(t, "bdim.x*bid.x + tid.x") && strcmp(t, "bdim.y*bid.y + tid.y")) {
		/* blockIdx.x * TILE + threadIdx.x, the launch's block dim3(TILE, ...) (and y likewise) */
		const char *d[2] = {L->block_x, L->block_y}, *want[2] = {"bdim.x*bid.x + tid.x", "bdim.y*bid.y + tid.y"};
		for (j = 0; j < 2; j++) {
			struct astra_ir_node *w;
			char *t2;
			if (!d[j] || is_param_name(L, d[j]))
				continue;
			w = replace_name(L, v, d[j], lift_atom(L, j ? "bdim.y" : "bdim.x"));
			t2 = lift_text(w);
			if (!strcmp(t2, want[j])) {
				free(t);
				t = t2;
				break;
			}
			free(t2);
		}
	}
	if (!strcmp(t, "bdim.x*bid.x + tid.x")) {
		set_mapping(L, L->twod ? IR_MAP_2D : IR_MAP_THREAD);
		v = lift_atom(L, L->twod ? "c" : "i");
		if (L->twod)
			L->uses_c = 1;
	} else if (!strcmp(t, "bdim.y*bid.y + tid.y")) {
		set_mapping(L, IR_MAP_2D);
		v = lift_atom(L, "r");
	} else if (!strcmp(t, "bdim.y*bid.x + tid.y")) {
		set_mapping(L, IR_MAP_2D_ROWS);
		v = lift_atom(L, "r");
	} else {
		for (j = 0; lane[j]; j++)
			if (!strcmp(t, lane[j]))
				v = lift_atom(L, "lane");
		for (j = 0; warp[j]; j++)
			if (!strcmp(t, warp[j]))
				v = lift_atom(L, "warp");
		for (j = 0; warp_rows[j]; j++)
			if (!strcmp(t, warp_rows[j])) {
				set_mapping(L, IR_MAP_WARP);
				v = lift_atom(L, "r");
			}
	}
	free(t);
	return v;
}

struct astra_ir_node *lift_bind(struct lifter *L, struct astra_ir_node *v)
{
	return bind(L, v, 1);
}

/* A block per row: threadIdx.x outside a loop spread over threads is the column. */
static struct astra_ir_node *logical(struct lifter *L, struct astra_ir_node *v)
{
	if (!L->twod && lift_depends(v, "bid.x") && (L->ir->mapping == IR_MAP_NONE || L->ir->mapping == IR_MAP_BLOCK)) {
		/* blockIdx.x alone in an index or offset: a block per row */
		set_mapping(L, IR_MAP_BLOCK);
		v = replace(L, v, "bid.x", lift_atom(L, "r"));
	}
	if (L->ir->mapping == IR_MAP_BLOCK && lift_depends(v, "tid.x")) {
		L->ir->one_per_thread = 1;
		L->uses_c = 1;
		return replace(L, v, "tid.x", lift_atom(L, "c"));
	}
	return v;
}

static int required_scope(struct lifter *L, const char *axis)
{
	if (strcmp(axis, "c"))
		return IR_SCOPE_GRID;
	switch (L->ir->mapping) {
	case IR_MAP_BLOCK: return IR_SCOPE_BLOCK;
	case IR_MAP_WARP: case IR_MAP_2D_ROWS: return IR_SCOPE_WARP;
	default: return IR_SCOPE_THREAD;
	}
}

struct astra_ir_node *lift_combine(struct lifter *L, const char *op, int scope, struct astra_ir_node *v)
{
	struct astra_ir_node *p;
	int sc;
	if (v->kind == IR_RED)
		return v;
	if (v->kind == IR_PARTIAL) {
		if (strcmp(v->s, op))
			lift_fail(L, "a %s's parts are combined with %s", v->s, op);
		sc = v->scope & 15;
		if ((v->scope & 16) && scope == IR_SCOPE_WARP)
			sc = IR_SCOPE_BLOCK;
		else if (scope > sc)
			sc = scope;
		p = astra_ir_node(L->ar, IR_PARTIAL, op, 1, v->a[0]);
		p->axis = v->axis;
	} else {
		v = logical(L, v);
		if (!strcmp(op, "sum") && v->kind == IR_COND && v->a[0]->kind == IR_BIN && !strcmp(v->a[0]->s, "<") &&
		    v->a[0]->a[0]->kind == IR_ATOM && (!strcmp(v->a[0]->a[0]->s, "i") || !strcmp(v->a[0]->a[0]->s, "c")) &&
		    v->a[2]->kind == IR_NUM && lift_is(v->a[2], "0")) {
			/* idx < n ? x[idx] : 0 summed: the bound of idx, and x[idx] */
			int first = !strcmp(v->a[0]->a[0]->s, "i") && !L->ext_i;
			lift_set_extent(L, v->a[0]->a[0], v->a[0]->a[1]);
			if (first)
				L->sel_bound = L->ext_i;   /* lift-share.c: a block's row keeps it */
			v = v->a[1];
		}
		if (lift_depends(v, "c"))
			p = astra_ir_node(L->ar, IR_PARTIAL, op, 1, v);
		else if (lift_depends(v, "i"))
			p = astra_ir_node(L->ar, IR_PARTIAL, op, 1, v);
		else
			lift_fail(L, "threads combine a value that does not depend on the columns or elements");
		p->axis = lift_depends(v, "c") ? "c" : "i";
		sc = scope;
	}
	p->scope = sc;
	if (sc >= required_scope(L, p->axis))
		p->kind = IR_RED;
	return p;
}

static int is_partial(const struct astra_ir_node *n)
{
	size_t j;
	if (n->kind == IR_PARTIAL)
		return 1;
	for (j = 0; j < n->nr; j++)
		if (is_partial(n->a[j]))
			return 1;
	return 0;
}

static int is_type_word(struct lifter *L, const char *s)
{
	static const char *const w[] = {"float", "double", "int", "unsigned", "long", "half", "__half", "size_t",
					"__nv_bfloat16", "int64_t", "uint32_t", NULL};
	size_t j;
	for (j = 0; w[j]; j++)
		if (!strcmp(s, w[j]))
			return 1;
	/* a type parameter only: `Activation(x)` through a function-pointer parameter is a call */
	for (j = 0; j < L->k->nr_tmpl; j++)
		if (!strcmp(L->k->tmpl_params[j], s) && L->k->tmpl_kinds && L->k->tmpl_kinds[j] &&
		    (!strcmp(L->k->tmpl_kinds[j], "typename") || !strcmp(L->k->tmpl_kinds[j], "class")))
			return 1;
	return astra_env_alias(&L->k->env, s, strlen(s)) != NULL;
}

static int conversion(const char *s)
{
	static const char *const c[] = {
		"__half2float", "__float2half", "__float2half_rn", "__bfloat162float", "__float2bfloat16",
		"__float2bfloat16_rn", "__int2float_rn", "__ldg", "__ldcs", "__ldcg", "__ldlu", NULL,
	};
	size_t j;
	for (j = 0; c[j]; j++)
		if (!strcmp(s, c[j]))
			return 1;
	return 0;
}

static struct astra_ir_node *deref(struct lifter *L, struct astra_ir_node *p)
{
	struct astra_ir_node *ld;
	if (p->kind != IR_PTR)
		lift_fail(L, "a load through something that is not a parameter's pointer");
	ld = astra_ir_node(L->ar, IR_LOAD, p->s, 1, logical(L, lift_bind(L, p->a[0])));
	{
		/* a load of what the kernel stored before: the stored value */
		char *t = lift_text(ld->a[0]);
		size_t j;
		for (j = L->ir->nr_stores; j-- > 0;) {
			char *u;
			if (strcmp(L->ir->stores[j].buf, p->s) || L->ir->stores[j].accumulate)
				continue;
			u = lift_text(L->ir->stores[j].index);
			if (!strcmp(t, u)) {
				free(t);
				free(u);
				if (L->ir->stores[j].open_loop)
					lift_fail(L, "reads `%s[...]` inside the loop over k that accumulates it (a scan)", p->s);
				return L->ir->stores[j].value;
			}
			free(u);
		}
		free(t);
	}
	if (lift_depends(ld, "c"))
		L->uses_c = 1;
	return ld;
}

/* A __device__ helper of the file, inlined: its parameters bound to the arguments. */
static struct astra_ir_node *inline_helper(struct lifter *L, const struct astra_func *f, struct astra_ir_node **args,
					   size_t nr)
{
	struct astra_ir_stmt *body;
	struct astra_ir_node *saved_ret = L->ret, *r;
	size_t saved_vars = L->nr_vars, j;
	struct astra_buf why = ASTRA_BUF_INIT;
	unsigned saved_line = L->line;
	int saved_returned;
	const char *saved_helper;
	if (L->depth >= 8)
		lift_fail(L, "helpers nested too deep (%s)", f->name);
	if (nr != f->nr_params)
		lift_fail(L, "`%s` called with %zu arguments, defined with %zu", f->name, nr, f->nr_params);
	body = astra_ir_parse(L->ar, f->body, strlen(f->body), 0, L->k, &why);
	if (!body) {
		astra_buf_release(&why);
		lift_fail(L, "cannot read the helper `%s`", f->name);
	}
	astra_buf_release(&why);
	for (j = 0; j < nr; j++) {
		struct lvar *target = args[j]->kind == IR_SHARED ? lift_var(L, args[j]->s) : NULL;
		struct lvar *v = lift_declare(L, f->params[j].name);
		if (target)
			v->alias = target;   /* a shared array passed by pointer */
		else
			v->val = args[j];
	}
	L->depth++;
	L->ret = NULL;
	saved_helper = L->helper;
	L->helper = f->name;
	saved_returned = L->returned;
	L->returned = 0;
	lift_stmt(L, body, 0);
	L->returned = saved_returned;
	L->helper = saved_helper;
	r = L->ret;
	L->ret = saved_ret;
	L->depth--;
	L->nr_vars = saved_vars;
	L->line = saved_line;
	if (!r)
		lift_fail(L, "the helper `%s` returns no value the lifter sees", f->name);
	return r;
}

struct astra_ir_node *lift_call(struct lifter *L, struct astra_ir_node *n)
{
	struct astra_ir_node **args = astra_ir_alloc(L->ar, (n->nr + 1) * sizeof(*args)), *c;
	const struct astra_func *f;
	size_t j;
	if (!strncmp(n->s, "__shfl", 6)) {
		if (n->nr < 3)
			lift_fail(L, "`%s` with %zu arguments", n->s, n->nr);
		c = astra_ir_node(L->ar, IR_CALL, "__shfl", 2, lift_eval(L, n->a[1]), lift_eval(L, n->a[2]));
		/* __shfl_sync(mask, v, 0): lane 0's value to the warp; a complete reduction stays itself */
		if (!strcmp(n->s, "__shfl_sync") && c->a[0]->kind == IR_RED && lift_is(c->a[1], "0"))
			return c->a[0];
		return c;
	}
	if (!strncmp(n->s, "atomic", 6) || !strcmp(n->s, "__syncthreads") || !strncmp(n->s, "__sync", 6))
		lift_fail(L, "`%s` inside an expression", n->s);
	if (n->s[0] == '.')
		lift_fail(L, "a member function call (`%s()`: cooperative groups, structures) is not modelled", n->s);
	for (j = 0; j < n->nr; j++)
		args[j] = lift_eval(L, n->a[j]);
	if ((conversion(n->s) || is_type_word(L, n->s)) && n->nr == 1) {
		if (args[0]->kind == IR_PTR)
			return deref(L, args[0]);
		return args[0];
	}
	f = astra_env_func(&L->k->env, n->s, strlen(n->s));
	if (f && f->body && !f->overloaded)
		return inline_helper(L, f, args, n->nr);
	for (j = 0; j < n->nr && !L->in_shfl; j++)
		if (is_partial(args[j]))
			lift_fail(L, "a partial reduction is used (by `%s`) before its parts are combined", n->s);
	c = astra_ir_node(L->ar, IR_CALL, n->s, 0);
	c->a = args;
	c->nr = n->nr;
	return c;
}

static struct astra_ir_node *member(struct lifter *L, struct astra_ir_node *n)
{
	static const char *const b[][2] = {
		{"threadIdx", "tid"}, {"blockIdx", "bid"}, {"blockDim", "bdim"}, {"gridDim", "gdim"},
	};
	size_t j;
	if (n->a[0]->kind == IR_NAME && !lift_var(L, n->a[0]->s))
		for (j = 0; j < 4; j++)
			if (!strcmp(n->a[0]->s, b[j][0])) {
				char *s = xasprintf("%s.%s", b[j][1], n->s);
				const char *a = astra_ir_strdup(L->ar, s, strlen(s));
				free(s);
				if (!strcmp(n->s, "y") || !strcmp(n->s, "z"))
					L->twod = 1;
				return lift_atom(L, a);
			}
	lift_fail(L, "a member access (`.%s`: vector types, structures) is not modelled", n->s);
	return NULL;
}

/* A cooperative-groups handle of the thread block: cg::this_thread_block(), evaluated. */
int lift_block_group(struct lifter *L, struct astra_ir_node *n)
{
	(void)L;
	return n->kind == IR_CALL && !n->nr &&
	       (!strcmp(n->s, "cg::this_thread_block") || !strcmp(n->s, "cooperative_groups::this_thread_block") ||
		!strcmp(n->s, "this_thread_block"));
}

static const struct astra_param *param(struct lifter *L, const char *name)
{
	size_t j;
	for (j = 0; j < L->k->nr_params; j++)
		if (!strcmp(L->k->params[j].name, name))
			return &L->k->params[j];
	return NULL;
}

/* The shared array an index chain `sh[a][b]` names, or NULL. */
struct lvar *lift_shared_base(struct lifter *L, struct astra_ir_node *n)
{
	struct lvar *v;
	while (n->kind == IR_INDEX)
		n = n->a[0];
	while (n->kind == IR_CAST)
		n = n->a[0];
	return n->kind == IR_NAME && (v = lift_var(L, n->s)) && v->shared ? v : NULL;
}

/* Where `sh[a][b]` is, as text ("[a][b]", each index canonical); *last: the last index, evaluated. */
const char *lift_shared_place(struct lifter *L, struct astra_ir_node *n, struct astra_ir_node **last)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *s;
	*last = NULL;
	for (; n->kind == IR_INDEX; n = n->a[0]) {
		struct astra_ir_node *ix = lift_bind(L, lift_eval(L, n->a[1]));
		char *t = lift_text(ix), *u = xasprintf("[%s]%s", t, b.buf ? b.buf : "");
		if (!*last)
			*last = ix;
		astra_buf_reset(&b);
		astra_buf_adds(&b, u);
		free(t);
		free(u);
	}
	s = astra_ir_strdup(L->ar, b.buf ? b.buf : "", b.len);
	astra_buf_release(&b);
	return s;
}

/* A place as a reason shows it: the tile loop's offset by its variable's name. */
static const char *shown(struct lifter *L, const char *place)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *p = place, *q, *s;
	if (!L->tile_var)
		return place;
	while ((q = strstr(p, "tile.row")) != NULL) {
		astra_buf_add(&b, p, (size_t)(q - p));
		astra_buf_adds(&b, L->tile_var);
		p = q + 8;
	}
	astra_buf_adds(&b, p);
	s = astra_ir_strdup(L->ar, b.buf, b.len);
	astra_buf_release(&b);
	return s;
}

static struct astra_ir_node *read_shared(struct lifter *L, struct lvar *v, struct astra_ir_node *ix, const char *place)
{
	struct astra_ir_node *r;
	if (!v->val)
		lift_fail(L, "reads the shared `%s` before anything is stored in it", v->name);
	if (place && v->at && !v->warp_slots && v->val->kind != IR_RED && v->val->kind != IR_PARTIAL && strcmp(place, v->at)) {
		if ((r = lift_share_staged(L, v, place)) != NULL)
			return r;   /* a staged transpose (lift-share.c) */
		lift_fail(L, "reads the shared `%s` at %s, where this thread stored %s: of the values passed between threads "
			  "through shared memory, only a square tile stored once and read transposed after a barrier is "
			  "modelled", v->name, shown(L, place), shown(L, v->at));
	}
	if (!v->warp_slots)
		return v->val;
	ix = lift_bind(L, ix);
	if (!(ix->kind == IR_ATOM && (!strcmp(ix->s, "lane") || !strcmp(ix->s, "tid.x"))))
		return v->val;
	/* the warps' parts, one per lane of the warp that reads them */
	if (v->val->kind != IR_PARTIAL)
		return v->val;
	r = astra_ir_alloc(L->ar, sizeof(*r));
	*r = *v->val;
	r->scope |= 16;
	return r;
}

struct astra_ir_node *lift_eval(struct lifter *L, struct astra_ir_node *n)
{
	struct astra_ir_node *a, *b;
	struct lvar *v;
	const struct astra_param *p;
	switch (n->kind) {
	case IR_NUM:
		return n;
	case IR_NAME:
		if (!strcmp(n->s, "warpSize"))
			return lift_num(L, "32");
		v = lift_var(L, n->s);
		if (v) {
			if (v->shared && !v->array)
				return read_shared(L, v, lift_num(L, "0"), NULL);
			if (v->shared)
				return astra_ir_node(L->ar, IR_SHARED, v->name, 0);
			if (!v->val)
				lift_fail(L, "`%s` is used before it is set", n->s);
			if (v->acc_loop && !L->in_shfl)
				lift_fail(L, "reads the running value of `%s` inside the loop that accumulates it (a scan)", n->s);
			if (v->loop_depth < L->nr_loops && !L->in_shfl)
				v->loop_reads++;
			return v->val;
		}
		p = param(L, n->s);
		if (p && p->is_pointer)
			return astra_ir_node(L->ar, IR_PTR, p->name, 1, lift_num(L, "0"));
		return n;
	case IR_MEMBER:
		return member(L, n);
	case IR_CAST:
		return lift_eval(L, n->a[0]);
	case IR_INDEX:
		if ((v = lift_shared_base(L, n)) != NULL) {
			const char *place = lift_shared_place(L, n, &a);
			return read_shared(L, v, a, place);
		}
		a = lift_eval(L, n->a[0]);
		b = lift_eval(L, n->a[1]);
		if (a->kind != IR_PTR)
			lift_fail(L, "indexes something that is not a parameter's pointer");
		return deref(L, astra_ir_node(L->ar, IR_PTR, a->s, 1, lift_bin(L, "+", a->a[0], b)));
	case IR_UN:
		if (!strcmp(n->s, "&")) {
			if (n->a[0]->kind != IR_INDEX)
				lift_fail(L, "takes the address of something that is not an element");
			a = lift_eval(L, n->a[0]->a[0]);
			if (a->kind != IR_PTR)
				lift_fail(L, "takes the address of an element of something that is not a parameter");
			return astra_ir_node(L->ar, IR_PTR, a->s, 1, lift_bin(L, "+", a->a[0], lift_eval(L, n->a[0]->a[1])));
		}
		a = lift_eval(L, n->a[0]);
		if (!strcmp(n->s, "*"))
			return deref(L, a);
		if (!strcmp(n->s, "+"))
			return a;
		if (is_partial(a))
			lift_fail(L, "a partial reduction is used before its parts are combined");
		return astra_ir_node(L->ar, IR_UN, n->s, 1, a);
	case IR_BIN:
		a = lift_eval(L, n->a[0]);
		b = lift_eval(L, n->a[1]);
		if (a->kind == IR_PTR && (!strcmp(n->s, "+") || !strcmp(n->s, "-")))
			return astra_ir_node(L->ar, IR_PTR, a->s, 1, logical(L, lift_bind(L, lift_bin(L, n->s, a->a[0], b))));
		if (b->kind == IR_PTR && !strcmp(n->s, "+"))
			return astra_ir_node(L->ar, IR_PTR, b->s, 1, logical(L, lift_bind(L, lift_bin(L, "+", b->a[0], a))));
		if (a->kind == IR_PTR || b->kind == IR_PTR)
			lift_fail(L, "pointer arithmetic other than an offset");
		if (!L->in_shfl && (is_partial(a) || is_partial(b)))
			lift_fail(L, "a partial reduction is used before its parts are combined");
		if (a->kind == IR_NUM && b->kind == IR_NUM && strchr("+-*/", n->s[0]) && !n->s[1]) {
			char *ea, *eb, *t;
			long x = strtol(a->s, &ea, 0), y = strtol(b->s, &eb, 0);
			if (!*ea && !*eb && (n->s[0] != '/' || (y && y != -1))) {
				unsigned long ux = (unsigned long)x, uy = (unsigned long)y;
				long q = n->s[0] == '+' ? (long)(ux + uy) : n->s[0] == '-' ? (long)(ux - uy) :
					 n->s[0] == '*' ? (long)(ux * uy) : x / y;   /* wrapping, no UB */
				t = xasprintf("%ld", q);
				a = lift_num(L, astra_ir_strdup(L->ar, t, strlen(t)));
				free(t);
				return a;
			}
		}
		if ((!strcmp(n->s, "/") || !strcmp(n->s, "%")) && a->kind == IR_ATOM && !strcmp(a->s, "i") &&
		    !(b->kind == IR_NUM && lift_is(b, "32"))) {
			/* a flat index split into a row and a column */
			char *t = lift_text(b);
			int other = L->split && !lift_is(L->split, t);
			free(t);
			if (other)
				lift_fail(L, "the flat index is split by two different row lengths");
			if (L->c_loop)
				lift_fail(L, "the flat index is split into a row and a column, and a loop runs over columns");
			L->split = b;
			L->uses_c = 1;
			return lift_atom(L, n->s[0] == '/' ? "r" : "c");
		}
		return lift_bind(L, lift_bin(L, n->s, a, b));
	case IR_COND:
		a = lift_eval(L, n->a[0]);
		{
			struct astra_ir_node *t = lift_eval(L, n->a[1]), *e = lift_eval(L, n->a[2]);
			/* the lanes beyond the warps' count read the identity */
			if (t->kind == IR_PARTIAL && (e->kind == IR_NUM || (e->kind == IR_UN && e->a[0]->kind == IR_NAME) ||
						      e->kind == IR_NAME))
				return t;   /* the identity: 0, -INFINITY, -FLT_MAX */
			if (is_partial(t) || is_partial(e) || is_partial(a))
				lift_fail(L, "a partial reduction is used before its parts are combined");
			return astra_ir_node(L->ar, IR_COND, NULL, 3, a, t, e);
		}
	case IR_CALL:
		return lift_call(L, n);
	case IR_ASSIGN:
	case IR_INCDEC:
		lift_fail(L, "an assignment inside an expression is not modelled");
		break;
	default:
		break;
	}
	lift_fail(L, "an expression the lifter does not know");
	return NULL;
}

/* The place lhs (`p[i]`, `*p`) stores to: a parameter's pointer and the index in logical indices. */
static struct astra_ir_node *store_place(struct lifter *L, struct astra_ir_node *lhs)
{
	struct astra_ir_node *p;
	if (lhs->kind == IR_INDEX)
		p = lift_eval(L, astra_ir_node(L->ar, IR_UN, "&", 1, lhs));
	else if (lhs->kind == IR_UN && !strcmp(lhs->s, "*"))
		p = lift_eval(L, lhs->a[0]);
	else
		p = lift_eval(L, lhs);
	if (p->kind != IR_PTR)
		lift_fail(L, "stores through something that is not a parameter's pointer");
	return astra_ir_node(L->ar, IR_PTR, p->s, 1, logical(L, lift_bind(L, p->a[0])));
}

/* Which of the stores so far (not atomic) is at place p; -1 if none. */
static long stored_at(struct lifter *L, const struct astra_ir_node *p)
{
	char *t = lift_text(p->a[0]);
	size_t j;
	long at = -1;
	for (j = 0; j < L->ir->nr_stores && at < 0; j++) {
		char *u = lift_text(L->ir->stores[j].index);
		if (!strcmp(L->ir->stores[j].buf, p->s) && !strcmp(t, u) && !L->ir->stores[j].accumulate)
			at = (long)j;
		free(u);
	}
	free(t);
	return at;
}

int lift_stored(struct lifter *L, struct astra_ir_node *lhs)
{
	return stored_at(L, store_place(L, lhs)) >= 0;
}

void lift_store(struct lifter *L, struct astra_ir_node *lhs, struct astra_ir_node *val, int accumulate)
{
	struct astra_ir_node *p = store_place(L, lhs);
	struct astra_ir_store *s;
	long at;
	val = logical(L, val);
	if (accumulate && !lift_depends(p->a[0], "i") && !lift_depends(p->a[0], "c")) {
		/* an atomic add to one place per row (or one place): the threads' parts summed there */
		if (val->kind == IR_PARTIAL || lift_depends(val, "i") || (lift_depends(val, "c") && L->ir->mapping != IR_MAP_THREAD)) {
			val = lift_combine(L, "sum", IR_SCOPE_GRID, val);
			val->kind = IR_RED;
		}
	}
	lift_share_segment(L, p, &val, accumulate);   /* out[blockIdx.x] of a block's parts: a row per block */
	lift_share_swapped(L, &p->a[0], &val);        /* a staged transpose's store */
	if (is_partial(val))
		lift_fail(L, "stores a reduction whose parts are never combined");
	if (lift_depends(p->a[0], "c"))
		L->uses_c = 1;
	/* a later store to the same place replaces the earlier one */
	if (!accumulate && (at = stored_at(L, p)) >= 0) {
		memmove(&L->ir->stores[at], &L->ir->stores[at + 1], (L->ir->nr_stores - at - 1) * sizeof(*L->ir->stores));
		L->ir->nr_stores--;
	}
	ALLOC_GROW(L->ir->stores, L->ir->nr_stores + 1, L->ir->alloc_stores);
	s = &L->ir->stores[L->ir->nr_stores++];
	s->buf = p->s;
	s->index = p->a[0];
	s->value = val;
	s->accumulate = accumulate;
	s->line = L->line;
	s->open_loop = 0;
}

static const char *const thread_atoms[] = {"tid.x", "tid.y", "bid.x", "bid.y", "lane", "warp", "tid.z", "bid.z", "tile.row",
					  NULL};

static const char *leftover(const struct astra_ir_node *n)
{
	size_t j;
	for (j = 0; thread_atoms[j]; j++)
		if (lift_depends(n, thread_atoms[j]))
			return thread_atoms[j];
	return NULL;
}

/* The row stride of a one-element-per-thread kernel: the coefficient of r next to c. */
static const char *stride_of(struct lifter *L, const struct astra_ir_node *n)
{
	size_t j;
	const char *s;
	if (n->kind == IR_LOAD && lift_depends(n->a[0], "r") && lift_depends(n->a[0], "c")) {
		struct astra_ir_node *r0 = replace(L, replace(L, n->a[0], "c", lift_num(L, "0")), "r", lift_num(L, "1"));
		struct astra_ir_node *base = replace(L, replace(L, n->a[0], "c", lift_num(L, "0")), "r", lift_num(L, "0"));
		char *t = lift_text(lift_bin(L, "-", r0, base));
		s = astra_ir_strdup(L->ar, t, strlen(t));
		free(t);
		return s;
	}
	for (j = 0; j < n->nr; j++)
		if ((s = stride_of(L, n->a[j])) != NULL)
			return s;
	return NULL;
}

/* An extent as printed: the canonical text of its poly. */
const char *lift_ext(struct lifter *L, const struct astra_ir_node *n)
{
	char *t;
	const char *s;
	if (!n)
		return NULL;
	t = lift_text(n);
	s = astra_ir_strdup(L->ar, t, strlen(t));
	free(t);
	return s;
}

void lift_rename_all(struct lifter *L, const char *from, struct astra_ir_node *to)
{
	size_t j;
	for (j = 0; j < L->ir->nr_stores; j++) {
		L->ir->stores[j].index = replace(L, L->ir->stores[j].index, from, to);
		L->ir->stores[j].value = replace(L, L->ir->stores[j].value, from, to);
	}
}

static void finish(struct lifter *L)
{
	struct astra_ir *ir = L->ir;
	size_t j;
	if (!ir->nr_stores)
		lift_fail(L, "no store the lifter can see");
	if (lift_share_finish(L)) {
		/* per-block partial results: a row per block (lift-share.c) */
	} else if (L->split) {
		struct astra_ir_node *e = L->ext_i;
		lift_rename_all(L, "i", lift_bin(L, "+", lift_bin(L, "*", lift_atom(L, "r"), L->split), lift_atom(L, "c")));
		ir->cols = lift_ext(L, L->split);
		if (e && e->kind == IR_BIN && !strcmp(e->s, "*") && !strcmp(lift_ext(L, e->a[1]), ir->cols))
			ir->rows = lift_ext(L, e->a[0]);
		else if (e && e->kind == IR_BIN && !strcmp(e->s, "*") && !strcmp(lift_ext(L, e->a[0]), ir->cols))
			ir->rows = lift_ext(L, e->a[1]);
		else
			lift_fail(L, "the flat index is split by %s, its bound is not a multiple of it", ir->cols);
	} else {
		/* a thread per row (with a column loop), or a flat space printed with i */
		lift_rename_all(L, "i", lift_atom(L, "r"));
		if (L->ext_i && !L->ext_r)
			L->ext_r = L->ext_i;
		if (!L->uses_c)
			L->ext_c = NULL;
	}
	if (ir->mapping == IR_MAP_THREAD && L->c_loop)
		ir->mapping = IR_MAP_THREAD_ROW;
	if (L->ext_k)
		ir->inner = lift_ext(L, L->ext_k);
	if (L->lo_i && !L->split && !L->lo_r)
		L->lo_r = L->lo_i;
	else if (L->lo_i)
		lift_fail(L, "a lower bound on a flat index split into a row and a column");
	if (L->lo_r && !lift_is(L->lo_r, "0"))
		ir->rows_lo = lift_ext(L, L->lo_r);
	if (L->lo_c && !L->split)
		L->lo_c = replace(L, L->lo_c, "i", lift_atom(L, "r"));   /* a triangle: the columns from the row on */
	if (L->lo_c && !lift_is(L->lo_c, "0")) {
		ir->cols_lo = lift_ext(L, L->lo_c);
		ir->cols_first = L->lo_c;
	}
	if (!ir->rows)
		ir->rows = lift_ext(L, L->ext_r);
	if (!ir->rows && ir->mapping == IR_MAP_BLOCK && L->k->pragma.grid)
		ir->rows = L->k->pragma.grid;
	if (!ir->rows && (ir->mapping == IR_MAP_2D || ir->mapping == IR_MAP_2D_TILE))
		ir->rows = lift_grid_extent(L, 1);   /* no bounds check: the tiles the grid covers */
	if (!ir->rows)
		lift_fail(L, "no bound on the rows (no `row < rows` check, no launch grid in the pragma%s)",
			  ir->mapping == IR_MAP_2D || ir->mapping == IR_MAP_2D_TILE ? " of the form dim3(W / TILE, H / TILE)" : "");
	if (L->uses_c && !ir->cols) {
		ir->cols = lift_ext(L, L->ext_c);
		if (!ir->cols && (ir->mapping == IR_MAP_2D || ir->mapping == IR_MAP_2D_TILE))
			ir->cols = lift_grid_extent(L, 0);
		if (ir->one_per_thread)
			for (j = 0; j < ir->nr_stores && !ir->cols; j++) {
				struct astra_ir_node ld;
				memset(&ld, 0, sizeof(ld));
				ld.kind = IR_LOAD;
				ld.a = &ir->stores[j].index;
				ld.nr = 1;
				if (!(ir->cols = stride_of(L, &ld)))
					ir->cols = stride_of(L, ir->stores[j].value);
			}
		if (ir->one_per_thread && ir->cols && L->k->pragma.block && strcmp(L->k->pragma.block, ir->cols))
			lift_fail(L, "one element per thread, but the block (%s) is not the row length (%s)", L->k->pragma.block,
				  ir->cols);
		if (!ir->cols)
			lift_fail(L, "no bound on the columns");
	}
	for (j = 0; j < ir->nr_stores; j++) {
		const char *a = leftover(ir->stores[j].index);
		if (!a)
			a = leftover(ir->stores[j].value);
		if (a) {
			L->line = ir->stores[j].line;
			lift_fail(L, "the store depends on `%s` in a way no mapping explains", a);
		}
	}
}

static unsigned body_line(const struct astra_kernel *k)
{
	unsigned line = k->line;
	size_t j, end = k->body_start > k->start ? k->body_start - k->start : 0;
	for (j = 0; j < end && k->text[j]; j++)
		if (k->text[j] == '\n')
			line++;
	return line;
}

/* The lifting itself; astra_ir_lift (lift-memo.c) keeps its last results. */
int lift_kernel(const struct astra_kernel *k, struct astra_ir *ir, struct astra_buf *why)
{
	struct lifter *L = xcalloc(1, sizeof(*L));
	struct astra_ir_stmt *body;
	size_t off = k->body_start > k->start ? k->body_start - k->start : 0;
	int ret = -1;
	memset(ir, 0, sizeof(*ir));
	L->k = k;
	L->ir = ir;
	L->ar = &ir->arena;
	L->why = why;
	L->line = k->line;
	L->alloc_vars = 1024;
	L->vars = xcalloc(L->alloc_vars, sizeof(*L->vars));
	L->twod = strstr(k->text, "threadIdx.y") || strstr(k->text, "blockIdx.y");
	if (k->pragma.block && !strncmp(k->pragma.block, "dim3(", 5))
		L->lanes_x = atoi(k->pragma.block + 5);
	lift_launch_dims(L);
	body = astra_ir_parse(L->ar, k->text + off, strlen(k->text + off), body_line(k), k, why);
	if (!body) {
		char *w = astra_buf_detach(why, NULL);
		astra_buf_addf(why, "%s:%s", k->file ? k->file : "?", w ? w + 5 : "?");
		free(w);
	} else if (!setjmp(L->fail)) {
		lift_stmt(L, body, 1);
		finish(L);
		ret = 0;
	}
	free(L->vars);
	free(L);
	return ret;
}
