/*
 * r-half2.c - rule "half2": in a vectorized chunk of 16-bit floats, the
 * conversions to and from float go two at a time (__half22float2,
 * __floats2half2_rn and their bfloat16 twins).
 *
 * It works on what the vectorizing rules produce: a register array A of
 * __half or __nv_bfloat16 whose every use in the chunk's unrolled loop is
 * `(float)A[k]` is unpacked into floats pairwise before the loop; one whose
 * every use is `A[k] = (T)(float expression);` is computed in floats and
 * packed pairwise after the loop.  The conversions round exactly as the
 * scalar ones do (round to nearest), so results are identical.  Types
 * other than the 16-bit ones use the scalar conversions.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "rules/facts.h"
#include "rules/helpers.h"
#include "rules/rule.h"

#define NONE ((size_t)-1)

struct h2 {
	struct astra_rk *rk;
	struct astra_facts *f;
	struct astra_syn *syn;
	struct astra_syn_edits edits;
	int count;
};

/* "astra_c<N>_<suffix>"? */
static int gen_name(const struct astra_syn *syn, size_t t, const char *suffix)
{
	const char *s = syn->text + syn->toks[t].off;
	size_t n = syn->toks[t].len, i = 7, sl = strlen(suffix);
	if (syn->toks[t].kind != SYN_IDENT || n < 9 || memcmp(s, "astra_c", 7))
		return 0;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	if (i == 7 || i >= n || s[i] != '_')
		return 0;
	i++;
	if (sl) {
		if (n - i < sl || memcmp(s + i, suffix, sl))
			return 0;
		i += sl;
	}
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	return i == n;
}

static char *elem_of(struct h2 *h, const struct astra_local *l)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	for (i = l->d.ty0; i < l->d.ty1; i++) {
		if (astra_syn_is(h->syn, i, "alignas")) {
			i = astra_syn_match(h->syn, i + 1);
			continue;
		}
		if (b.len)
			astra_buf_addch(&b, ' ');
		astra_buf_add(&b, h->syn->text + h->syn->toks[i].off, h->syn->toks[i].len);
	}
	return astra_buf_detach(&b, NULL);
}

static int visit(struct astra_stmt *loop, void *data)
{
	struct h2 *h = data;
	struct astra_syn *syn = h->syn;
	struct astra_decl *d = NULL;
	struct astra_stmt *body;
	char *k;
	long ept;
	size_t t, i;
	struct astra_vec done = ASTRA_VEC_INIT;

	if (loop->kind != STMT_FOR || astra_syn_decls(syn, loop->a0, loop->a1, &d) != 1 || !gen_name(syn, d[0].name, "k")) {
		free(d);
		return 0;
	}
	k = astra_syn_tokstr(syn, d[0].name);
	free(d);
	if (loop->b1 != loop->b0 + 3 || syn->toks[loop->b0 + 2].kind != SYN_NUMBER) {
		free(k);
		return 0;
	}
	ept = strtol(syn->text + syn->toks[loop->b0 + 2].off, NULL, 10);
	body = loop->kids[0];
	if (ept < 2 || ept % 2) {
		free(k);
		return 0;
	}
	for (t = body->t0; t < body->t1; t++) {
		const struct astra_local *l;
		char *name, *elem;
		int reads = 0, writes = 0, other = 0, mn, mx;
		size_t u;
		struct astra_syn_edits local = { NULL, 0, 0 };
		if (!gen_name(syn, t, "v") || !astra_syn_is(syn, t + 1, "["))
			continue;
		name = astra_syn_tokstr(syn, t);
		if (astra_vec_find(&done, name) >= 0) {
			free(name);
			continue;
		}
		astra_vec_push(&done, name);
		l = astra_facts_local(h->f, name, strlen(name));
		if (!l || !l->d.is_array || l->nr_decls != 1) {
			free(name);
			continue;
		}
		elem = elem_of(h, l);
		if (astra_rk_type_size(h->rk, elem, &mn, &mx) < 0 || mn != 2 ||
		    astra_facts_type_of_text(h->f, elem) == TY_INT) {
			free(elem);
			free(name);
			continue;
		}
		/* every use in the loop: (float)A[k] or A[k] = (T)(float expr); */
		for (u = body->t0; u < body->t1; u++) {
			if (!astra_syn_is(syn, u, name) || syn->toks[u].kind != SYN_IDENT)
				continue;
			if (!(astra_syn_is(syn, u + 1, "[") && astra_syn_is(syn, u + 2, k) && astra_syn_is(syn, u + 3, "]"))) {
				other++;
				continue;
			}
			if (u >= 3 && astra_syn_is(syn, u - 1, ")") && astra_syn_is(syn, u - 2, "float") &&
			    astra_syn_is(syn, u - 3, "(") && !astra_syn_is(syn, u + 4, "=")) {
				reads++;
				astra_syn_edit_owned(&local, syn->toks[u - 3].off, astra_syn_end(syn, u + 3),
						      xasprintf("%s_f[%s]", name, k));
				continue;
			}
			if (astra_syn_is(syn, u + 4, "=") && astra_syn_is(syn, u + 5, "(")) {
				size_t close = astra_syn_match(syn, u + 5), semi;
				char *ty = close != NONE ? astra_syn_text(syn, u + 6, close) : NULL;
				struct astra_expr *val;
				semi = close != NONE ? close + 1 : NONE;
				while (semi != NONE && semi < body->t1 && !astra_syn_is(syn, semi, ";"))
					semi++;
				val = close != NONE && semi < body->t1 ? astra_syn_expr(syn, close + 1, semi) : NULL;
				if (ty && !strcmp(ty, elem) && val && astra_facts_type(h->f, val) == TY_FLOAT) {
					/* `A[k] = (T)` becomes `A_f[k] = `; the value keeps its own rewrites */
					writes++;
					astra_syn_edit_owned(&local, syn->toks[u].off, astra_syn_end(syn, close),
							      xasprintf("%s_f[%s] = ", name, k));
					free(ty);
					continue;
				}
				free(ty);
			}
			other++;
		}
		if (other || (reads && writes) || (!reads && !writes)) {
			astra_syn_edits_release(&local);
			free(elem);
			free(name);
			continue;
		}
		for (i = 0; i < local.nr; i++)
			astra_syn_edit(&h->edits, local.items[i].start, local.items[i].end, local.items[i].text);
		astra_syn_edits_release(&local);
		{
			char *line = xasprintf("float %s_f[%ld];", name, ept);
			char *unpack = reads ? xasprintf("%s<%ld>(%s_f, %s);", ASTRA_HELPER("unpack"), ept, name, name) : NULL;
			size_t before = astra_syn_off(syn, loop->t0);
			/* in front of the loop's #pragma unroll */
			struct astra_stmt *p = loop->parent;
			for (i = 0; p && i < p->nr_kids; i++)
				if (p->kids[i] == loop && i > 0 && p->kids[i - 1]->kind == STMT_PP)
					before = astra_syn_off(syn, p->kids[i - 1]->t0);
			astra_rk_edit_line_before(h->rk, before, line, &h->edits);
			if (unpack)
				astra_rk_edit_line_before(h->rk, before, unpack, &h->edits);
			free(line);
			free(unpack);
			if (writes) {
				size_t end = astra_syn_end(syn, loop->t1 - 1), ls = astra_syn_off(syn, loop->t0);
				while (ls > 0 && h->rk->text[ls - 1] != '\n')
					ls--;
				astra_syn_edit_owned(&h->edits, end, end,
						      xasprintf("\n%.*s%s<%ld>(%s, %s_f);", (int)(astra_syn_off(syn, loop->t0) - ls),
								h->rk->text + ls, ASTRA_HELPER("pack"), ept, name, name));
			}
		}
		{
			size_t s;
			for (s = 0; s < h->rk->k->pragma.nr_types; s++) {
				const char *v = astra_rk_type_arg(h->rk, s, elem);
				char *bv = astra_rk_resolve_type(h->rk, v ? v : elem);
				if (!strcmp(bv, "__half") || !strcmp(bv, "half"))
					h->rk->helpers |= HELPER_H2_HALF;
				if (!strcmp(bv, "__nv_bfloat16") || !strcmp(bv, "nv_bfloat16"))
					h->rk->helpers |= HELPER_H2_BF16;
				free(bv);
			}
			{
				char *bv = astra_rk_resolve_type(h->rk, elem);
				if (!strcmp(bv, "__half") || !strcmp(bv, "half"))
					h->rk->helpers |= HELPER_H2_HALF;
				if (!strcmp(bv, "__nv_bfloat16") || !strcmp(bv, "nv_bfloat16"))
					h->rk->helpers |= HELPER_H2_BF16;
				free(bv);
			}
		}
		h->count++;
		free(elem);
		free(name);
	}
	astra_vec_clear(&done);
	free(k);
	return 0;
}

static int apply(struct astra_rk *rk, const char *arg, struct astra_buf *why)
{
	struct astra_facts f;
	struct h2 h;
	(void)arg;
	if (astra_facts_build(&f, rk) < 0) {
		astra_buf_adds(why, "the kernel could not be parsed");
		return 0;
	}
	memset(&h, 0, sizeof(h));
	h.rk = rk;
	h.f = &f;
	h.syn = &rk->syn;
	astra_syn_walk(rk->syn.body, visit, &h);
	astra_facts_release(&f);
	if (!h.count) {
		astra_syn_edits_release(&h.edits);
		astra_buf_adds(why, "no vectorized chunk of __half/__nv_bfloat16 converted element by element to or "
				    "from float (apply after vectorize, elems-per-thread)");
		return 0;
	}
	if (astra_rk_edit(rk, &h.edits) < 0) {
		astra_syn_edits_release(&h.edits);
		astra_buf_adds(why, "overlapping rewrites");
		return -1;
	}
	astra_syn_edits_release(&h.edits);
	rk->helpers |= HELPER_H2;
	return 1;
}

const struct astra_rule astra_rule_half2 = {
	.name = "half2",
	.summary = "pairwise half2/bfloat162 conversions to and from float in vectorized 16-bit chunks",
	.stage = 55,
	.apply = apply,
};
