/*
 * r-hoist.c - rule "hoist": declarations in a loop body whose value does
 * not change from one iteration to the next, and that load memory or call
 * a math function, move in front of the loop.
 *
 * nvcc moves invariant arithmetic out of loops itself, but it cannot move
 * a load past a store that might alias it, nor a call it cannot see into.
 * A declaration qualifies when its initializer mentions neither the loop's
 * index nor anything the loop changes, calls only math functions, has no
 * effect, and loads only memory the loop does not write (through pointers
 * the loop does not store through at all, unless the pragma says noalias).
 * The declared name must be unique in the kernel.  Chunked loops of the
 * vectorizing rules hoist their own invariants; this rule is for others.
 */
#include "autoconfig.h"

#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"
#include "rules/rule.h"

#define NONE ((size_t)-1)

static const char *const pure_fns[] = {
	"expf", "logf", "sqrtf", "rsqrtf", "fmaxf", "fminf", "fabsf", "tanhf", "sinf", "cosf", "powf", "exp2f",
	"log2f", "__expf", "__logf", "__fdividef", "__frcp_rn", "max", "min", "abs", "exp", "log", "sqrt",
	"__half2float", "__bfloat162float", "__float2half", "__float2bfloat16", "__ldg", "isinf", "isnan", NULL,
};

struct hs {
	struct astra_rk *rk;
	struct astra_facts *f;
	struct astra_syn_edits edits;
	int count;
	int noalias;
};

/* Does the statement s write through any pointer (an element store that is not a local array)? */
static int stores(struct hs *h, struct astra_stmt *s)
{
	const struct astra_syn *syn = h->f->syn;
	size_t t;
	for (t = s->t0; t < s->t1; t++) {
		const struct astra_local *l;
		size_t m;
		if (!astra_syn_is(syn, t, "]"))
			continue;
		if (!(astra_syn_is(syn, t + 1, "=") || astra_syn_is(syn, t + 1, "+=") || astra_syn_is(syn, t + 1, "-=") ||
		      astra_syn_is(syn, t + 1, "*=") || astra_syn_is(syn, t + 1, "/=") || astra_syn_is(syn, t + 1, "++") ||
		      astra_syn_is(syn, t + 1, "--")))
			continue;
		/* find the base of this subscript */
		for (m = t; m > s->t0 && !astra_syn_is(syn, m, "["); m--)
			;
		l = m > s->t0 ? astra_facts_local_tok(h->f, m - 1) : NULL;
		if (!l || !l->d.is_array || l->is_shared)
			return 1;
	}
	return 0;
}

static int invariant(struct hs *h, struct astra_stmt *loop, struct astra_stmt *body, size_t t0, size_t t1,
		     int *loads_or_calls)
{
	const struct astra_syn *syn = h->f->syn;
	size_t t;
	const char *const *p;
	for (t = t0; t < t1; t++) {
		const struct astra_local *l;
		char *name;
		if (astra_syn_is(syn, t, "[") || astra_syn_is(syn, t, "("))
			*loads_or_calls = 1;
		if (astra_syn_is(syn, t, "=") || astra_syn_is(syn, t, "++") || astra_syn_is(syn, t, "--") ||
		    astra_syn_is(syn, t, "+=") || astra_syn_is(syn, t, "-=") || astra_syn_is(syn, t, "threadIdx") ||
		    astra_syn_is(syn, t, "__syncthreads"))
			return 0;
		if (syn->toks[t].kind != SYN_IDENT || (t > 0 && (astra_syn_is(syn, t - 1, ".") || astra_syn_is(syn, t - 1, "->"))))
			continue;
		if (astra_syn_is(syn, t + 1, "(")) {
			int ok = astra_syn_is_type_name(syn, syn->text + syn->toks[t].off, syn->toks[t].len);
			for (p = pure_fns; *p && !ok; p++)
				ok = astra_syn_is(syn, t, *p);
			if (!ok)
				return 0;
			continue;
		}
		name = astra_syn_tokstr(syn, t);
		l = astra_facts_local(h->f, name, strlen(name));
		if (astra_facts_assigned_in(h->f, name, strlen(name), loop->t0, loop->t1) ||
		    (l && l->d.name >= body->t0 && l->d.name < body->t1)) {
			free(name);
			return 0;
		}
		free(name);
	}
	return 1;
}

static int visit(struct astra_stmt *loop, void *data)
{
	struct hs *h = data;
	const struct astra_syn *syn = h->f->syn;
	struct astra_stmt *body, *before;
	size_t i;
	int writes;
	if (loop->kind != STMT_FOR || loop->kids[0]->kind != STMT_BLOCK || !loop->parent || loop->parent->kind != STMT_BLOCK)
		return 0;
	body = loop->kids[0];
	writes = stores(h, body);
	/* in front of the loop, and of a #pragma unroll that belongs to it */
	for (i = 0; i < loop->parent->nr_kids; i++)
		if (loop->parent->kids[i] == loop)
			break;
	before = i > 0 && loop->parent->kids[i - 1]->kind == STMT_PP ? loop->parent->kids[i - 1] : loop;
	for (i = 0; i < body->nr_kids; i++) {
		struct astra_stmt *s = body->kids[i];
		struct astra_decl *d = NULL;
		size_t n, k;
		int ok, lc = 0, loads = 0;
		char *txt;
		if (s->kind != STMT_DECL)
			continue;
		n = astra_syn_decls(syn, s->a0, s->a1, &d);
		ok = n > 0 && astra_syn_find(syn, s->t0, s->t1, "__shared__") == NONE &&
		     astra_syn_find(syn, s->t0, s->t1, "static") == NONE;
		for (k = 0; k < n && ok; k++) {
			const struct astra_local *l = astra_facts_local_tok(h->f, d[k].name);
			if (d[k].is_array || d[k].init1 <= d[k].init0 || !l || l->nr_decls != 1 || l->assigned ||
			    !invariant(h, loop, body, d[k].init0, d[k].init1, &lc))
				ok = 0;
			if (astra_syn_find(syn, d[k].init0, d[k].init1, "[") != NONE)
				loads = 1;
		}
		free(d);
		if (!ok || !lc || (loads && writes && !h->noalias))
			continue;
		txt = astra_syn_text(syn, s->t0, s->t1);
		astra_rk_edit_line_before(h->rk, astra_syn_off(syn, before->t0), txt, &h->edits);
		astra_edit_delete(h->rk->text, astra_syn_off(syn, s->t0), astra_syn_end(syn, s->t1 - 1), &h->edits);
		free(txt);
		h->count++;
	}
	return 0;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_facts f;
	struct hs h;
	(void)arg;
	if (astra_facts_build(&f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	memset(&h, 0, sizeof(h));
	h.rk = rk;
	h.f = &f;
	h.noalias = (rk->k->pragma.flags & ASTRA_PRAGMA_NOALIAS) != 0;
	astra_syn_walk(rk->syn.body, visit, &h);
	astra_facts_release(&f);
	if (!h.count) {
		astra_syn_edits_release(&h.edits);
		astra_buf_adds(why, "no declaration in a loop body loads memory or calls a math function with a value "
				    "that is the same in every iteration");
		return 0;
	}
	if (astra_rk_edit(rk, &h.edits) < 0) {
		astra_syn_edits_release(&h.edits);
		astra_buf_adds(why, "overlapping rewrites");
		return -1;
	}
	astra_syn_edits_release(&h.edits);
	return 1;
}

const struct astra_rule astra_rule_hoist = {
	.name = "hoist",
	.summary = "loop-invariant loads and math calls declared in a loop body move in front of the loop",
	.stage = 50,
	.apply = apply,
};
