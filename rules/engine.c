/*
 * engine.c - the working copy of a kernel that rules rewrite, applying
 * steps, and turning the result into a struct astra_variant (see rule.h).
 *
 * Separate from the rules so that every rule sees the same state and the
 * same small services: parameter lookup, type sizes as instantiated by the
 * pragma, and a check that launch expressions use parameter names only.
 */
#include "autoconfig.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "front/types.h"
#include "rules/canon.h"
#include "rules/helpers.h"
#include "rules/rule.h"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void astra_rk_init(struct astra_rk *rk, const struct astra_kernel *k, int cc)
{
	memset(rk, 0, sizeof(*rk));
	rk->k = k;
	rk->text = xstrdup(k->text ? k->text : "");
	rk->grid = dup_or_null(k->pragma.grid);
	rk->block = dup_or_null(k->pragma.block);
	rk->shmem = dup_or_null(k->pragma.shmem);
	rk->cc = cc;
	astra_vec_init(&rk->steps);
}

void astra_rk_release(struct astra_rk *rk)
{
	free(rk->text);
	free(rk->grid);
	free(rk->block);
	free(rk->shmem);
	astra_vec_clear(&rk->steps);
	if (rk->parsed)
		astra_syn_release(&rk->syn);
	memset(rk, 0, sizeof(*rk));
}

void astra_rk_copy(struct astra_rk *dst, const struct astra_rk *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->k = src->k;
	dst->text = xstrdup(src->text);
	dst->grid = dup_or_null(src->grid);
	dst->block = dup_or_null(src->block);
	dst->shmem = dup_or_null(src->shmem);
	dst->own_geometry = src->own_geometry;
	dst->helpers = src->helpers;
	dst->cc = src->cc;
	dst->block_large = src->block_large;
	dst->block_max = src->block_max;
	dst->canonical = src->canonical;
	astra_vec_init(&dst->steps);
	astra_vec_pushv(&dst->steps, src->steps.v, src->steps.nr);
}

int astra_rk_parse(struct astra_rk *rk)
{
	size_t i;
	if (rk->parsed)
		return rk->parsed > 0 ? 0 : -1;
	if (astra_syn_lex(&rk->syn, rk->text, strlen(rk->text)) < 0) {
		rk->parsed = -1;
		return -1;
	}
	for (i = 0; i < rk->k->nr_tmpl; i++)
		if (rk->k->tmpl_kinds && rk->k->tmpl_kinds[i] &&
		    (!strcmp(rk->k->tmpl_kinds[i], "typename") || !strcmp(rk->k->tmpl_kinds[i], "class")))
			astra_syn_add_type(&rk->syn, rk->k->tmpl_params[i]);
	for (i = 0; i < rk->k->env.nr_aliases; i++)
		astra_syn_add_type(&rk->syn, rk->k->env.aliases[i].name);
	if (astra_syn_parse_kernel(&rk->syn) < 0) {
		rk->parsed = -1;
		return -1;
	}
	rk->parsed = 1;
	return 0;
}

void astra_rk_set_text(struct astra_rk *rk, char *text)
{
	if (rk->parsed)
		astra_syn_release(&rk->syn);
	rk->parsed = 0;
	free(rk->text);
	rk->text = text;
}

int astra_rk_edit(struct astra_rk *rk, const struct astra_syn_edits *e)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	if (astra_syn_apply(rk->text, 0, strlen(rk->text), e, &b) < 0) {
		astra_buf_release(&b);
		return -1;
	}
	astra_rk_set_text(rk, astra_buf_detach(&b, NULL));
	return 0;
}

char *astra_rk_line_indent(const struct astra_rk *rk, size_t off)
{
	const char *t = rk->text;
	size_t ls = off, e;
	while (ls > 0 && t[ls - 1] != '\n')
		ls--;
	for (e = ls; e < off && (t[e] == '\t' || t[e] == ' '); e++)
		;
	return xstrndup(t + ls, e - ls);
}

void astra_rk_edit_line_before(const struct astra_rk *rk, size_t off, const char *line, struct astra_syn_edits *e)
{
	const char *t = rk->text;
	size_t ls = off, j;
	int blank = 1;
	while (ls > 0 && t[ls - 1] != '\n')
		ls--;
	for (j = ls; j < off; j++)
		if (t[j] != ' ' && t[j] != '\t')
			blank = 0;
	if (blank) {
		astra_syn_edit_owned(e, ls, ls, xasprintf("%.*s%s\n", (int)(off - ls), t + ls, line));
	} else {
		/* code before it on the line: break the line */
		size_t ind = ls;
		while (ind < off && (t[ind] == ' ' || t[ind] == '\t'))
			ind++;
		astra_syn_edit_owned(e, off, off, xasprintf("\n%.*s%s\n%.*s", (int)(ind - ls), t + ls, line,
							     (int)(ind - ls), t + ls));
	}
}

void astra_edit_delete(const char *text, size_t start, size_t end, struct astra_syn_edits *e)
{
	size_t ls = start, le = end;
	while (ls > 0 && (text[ls - 1] == ' ' || text[ls - 1] == '\t'))
		ls--;
	while (text[le] == ' ' || text[le] == '\t')
		le++;
	if ((ls == 0 || text[ls - 1] == '\n') && (text[le] == '\n' || !text[le])) {
		if (text[le] == '\n')
			le++;
		astra_syn_edit(e, ls, le, "");
	} else {
		astra_syn_edit(e, start, end, "");
	}
}

void astra_rk_set_launch(struct astra_rk *rk, const char *grid, const char *block, const char *shmem)
{
	/* copy first: the arguments may be rk's own strings */
	char *g = grid ? xstrdup(grid) : NULL, *b = block ? xstrdup(block) : NULL;
	char *s = shmem ? xstrdup(shmem) : NULL;
	if (g) {
		free(rk->grid);
		rk->grid = g;
	}
	if (b) {
		free(rk->block);
		rk->block = b;
	}
	if (s) {
		free(rk->shmem);
		rk->shmem = s;
	}
	rk->own_geometry = 1;
}

int astra_rk_claim_geometry(struct astra_rk *rk, struct astra_buf *why)
{
	if (rk->own_geometry)
		return 0;
	if (!rk->grid || !rk->block) {
		astra_buf_adds(why, "the pragma gives no launch geometry");
		return -1;
	}
	if (!astra_rk_params_only(rk, rk->grid) || !astra_rk_params_only(rk, rk->block) ||
	    (rk->shmem && !astra_rk_params_only(rk, rk->shmem))) {
		astra_buf_addf(why, "the launch (grid=%s, block=%s%s%s) uses names a host launcher cannot evaluate "
				    "(neither kernel parameters nor host-visible names of the kernel's file), so a variant "
				    "cannot carry it", rk->grid, rk->block, rk->shmem ? ", shmem=" : "", rk->shmem ? rk->shmem : "");
		return -1;
	}
	rk->own_geometry = 1;
	return 0;
}

const struct astra_param *astra_rk_param(const struct astra_rk *rk, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < rk->k->nr_params; i++)
		if (strlen(rk->k->params[i].name) == len && !memcmp(rk->k->params[i].name, name, len))
			return &rk->k->params[i];
	return NULL;
}

int astra_rk_is_tmpl_param(const struct astra_rk *rk, const char *name)
{
	size_t i;
	for (i = 0; i < rk->k->nr_tmpl; i++)
		if (!strcmp(rk->k->tmpl_params[i], name))
			return 1;
	return 0;
}

char *astra_rk_bare_type(const char *type)
{
	return astra_type_bare(type);
}

char *astra_rk_resolve_type(const struct astra_rk *rk, const char *type)
{
	return astra_type_resolve(&rk->k->env, type);
}

const char *astra_rk_type_arg(const struct astra_rk *rk, size_t i, const char *name)
{
	if (i >= rk->k->pragma.nr_types)
		return NULL;
	return astra_assign_get(&rk->k->pragma.types[i], name);
}

int astra_rk_type_size(const struct astra_rk *rk, const char *type, int *min, int *max)
{
	char *t = astra_rk_resolve_type(rk, type);
	int s = astra_type_builtin_size(t), found = 0;
	size_t i;
	if (s) {
		*min = *max = s;
		free(t);
		return 0;
	}
	*min = 1 << 30;
	*max = 0;
	for (i = 0; i < rk->k->pragma.nr_types; i++) {
		const char *v = astra_assign_get(&rk->k->pragma.types[i], t);
		int vs;
		if (!v)
			continue;
		vs = astra_type_size(&rk->k->env, v);
		if (!vs) {
			free(t);
			return -1;
		}
		found = 1;
		if (vs < *min)
			*min = vs;
		if (vs > *max)
			*max = vs;
	}
	free(t);
	return found ? 0 : -1;
}

int astra_rk_params_only(const struct astra_rk *rk, const char *expr)
{
	struct astra_syn syn;
	size_t i;
	int ok = 1;
	if (!expr || astra_syn_lex(&syn, expr, strlen(expr)) < 0)
		return 0;
	for (i = 0; i < syn.nr_toks && ok; i++) {
		const char *s = syn.text + syn.toks[i].off;
		size_t n = syn.toks[i].len;
		int known;
		if (syn.toks[i].kind == SYN_PP || syn.toks[i].kind == SYN_STRING) {
			ok = 0;
			break;
		}
		if (syn.toks[i].kind != SYN_IDENT)
			continue;
		known = astra_launch_name(s, n);
		if (!known) {
			const struct astra_param *p = astra_rk_param(rk, s, n);
			known = p && !p->is_pointer;
		}
		if (!known) {
			/* a template parameter (sizeof(T)); the file's ceil_div, BLOCK_SIZE, floatX */
			char *nm = xstrndup(s, n);
			known = astra_rk_is_tmpl_param(rk, nm) || astra_kernel_host_name(rk->k, s, n);
			free(nm);
		}
		ok = known;
	}
	astra_syn_release(&syn);
	return ok;
}

const char *astra_rk_dep_naming(const struct astra_rk *rk, const char *const *words, const char **word)
{
	size_t i;
	for (i = 0; i < rk->k->nr_deps; i++) {
		const char *p = rk->k->dep_texts ? rk->k->dep_texts[i] : NULL;
		while (p && *p) {
			size_t n = 0;
			const char *const *w;
			if (!(isalpha((unsigned char)*p) || *p == '_')) {
				p++;
				continue;
			}
			while (isalnum((unsigned char)p[n]) || p[n] == '_')
				n++;
			for (w = words; *w; w++)
				if (strlen(*w) == n && !memcmp(p, *w, n)) {
					*word = *w;
					return rk->k->deps[i];
				}
			p += n;
		}
	}
	return NULL;
}

long astra_rk_block_literal(const struct astra_rk *rk)
{
	const char *s = rk->block;
	char *end;
	long v;
	if (!s)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	{
		/* BLOCK_SIZE, an object-like macro of the file or the build (-DBLOCK_SIZE=128) */
		size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
		const struct astra_macro *m;
		if (n && !isdigit((unsigned char)*s) && !s[n + strspn(s + n, " \t")] &&
		    (m = astra_env_macro(&rk->k->env, s, n)) && !m->function_like && m->body)
			s = m->body;
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '(' ) {
			v = strtol(s + 1, &end, 0);
			while (isspace((unsigned char)*end))
				end++;
			return (*end == ')' && !end[1 + strspn(end + 1, " \t")] && v > 0) ? v : 0;
		}
	}
	v = strtol(s, &end, 0);
	while (*end == 'u' || *end == 'U' || isspace((unsigned char)*end))
		end++;
	return (*end || end == s || v <= 0) ? 0 : v;
}

long astra_rk_block_at_largest(const struct astra_rk *rk)
{
	return rk->block_large ? rk->block_large : astra_rk_block_literal(rk);
}

long astra_rk_block_max(const struct astra_rk *rk)
{
	return rk->block_max ? rk->block_max : astra_rk_block_literal(rk);
}

/* --- a small integer evaluator over shape names, for heuristics only --- */

struct ev {
	const struct astra_rk *rk;
	const struct astra_assign_set *shape;
	struct astra_syn syn;
	size_t i;
	int fail, depth;
};

static long long ev_expr(struct ev *e);

static long long ev_name(struct ev *e, const char *name)
{
	const char *v = astra_assign_get(e->shape, name);
	struct ev sub;
	long long r;
	if (!v)
		v = astra_assign_get(&e->rk->k->pragma.scalars, name);
	if (!v || e->depth > 8) {
		e->fail = 1;
		return 0;
	}
	memset(&sub, 0, sizeof(sub));
	sub.rk = e->rk;
	sub.shape = e->shape;
	sub.depth = e->depth + 1;
	if (astra_syn_lex(&sub.syn, v, strlen(v)) < 0) {
		e->fail = 1;
		return 0;
	}
	r = ev_expr(&sub);
	if (sub.fail || sub.i != sub.syn.nr_toks)
		e->fail = 1;
	astra_syn_release(&sub.syn);
	return r;
}

static long long ev_primary(struct ev *e)
{
	struct astra_syn *s = &e->syn;
	long long v = 0;
	if (e->i >= s->nr_toks) {
		e->fail = 1;
		return 0;
	}
	if (astra_syn_is(s, e->i, "(")) {
		e->i++;
		v = ev_expr(e);
		if (!astra_syn_is(s, e->i, ")"))
			e->fail = 1;
		e->i++;
		return v;
	}
	if (astra_syn_is(s, e->i, "-")) {
		e->i++;
		return -ev_primary(e);
	}
	if (s->toks[e->i].kind == SYN_NUMBER) {
		char *t = astra_syn_tokstr(s, e->i), *end;
		v = strtoll(t, &end, 0);
		while (*end && strchr("uUlL", *end))
			end++;
		if (*end)
			e->fail = 1;
		free(t);
		e->i++;
		return v;
	}
	if (s->toks[e->i].kind == SYN_IDENT) {
		char *t = astra_syn_tokstr(s, e->i);
		e->i++;
		v = ev_name(e, t);
		free(t);
		return v;
	}
	e->fail = 1;
	return 0;
}

static long long ev_term(struct ev *e)
{
	long long v = ev_primary(e);
	while (!e->fail && e->i < e->syn.nr_toks &&
	       (astra_syn_is(&e->syn, e->i, "*") || astra_syn_is(&e->syn, e->i, "/") ||
		astra_syn_is(&e->syn, e->i, "%"))) {
		int op = e->syn.text[e->syn.toks[e->i].off];
		long long r;
		e->i++;
		r = ev_primary(e);
		if (op == '*')
			v *= r;
		else if (!r)
			e->fail = 1;
		else if (op == '/')
			v /= r;
		else
			v %= r;
	}
	return v;
}

static long long ev_expr(struct ev *e)
{
	long long v = ev_term(e);
	while (!e->fail && e->i < e->syn.nr_toks &&
	       (astra_syn_is(&e->syn, e->i, "+") || astra_syn_is(&e->syn, e->i, "-"))) {
		int plus = astra_syn_is(&e->syn, e->i, "+");
		e->i++;
		v = plus ? v + ev_term(e) : v - ev_term(e);
	}
	return v;
}

/* expr evaluated at shape s; -1 when it cannot be evaluated */
static long long eval_at_shape(const struct astra_rk *rk, const char *expr, size_t s)
{
	struct ev e;
	long long v;
	memset(&e, 0, sizeof(e));
	e.rk = rk;
	e.shape = &rk->k->pragma.shapes[s];
	if (astra_syn_lex(&e.syn, expr, strlen(expr)) < 0)
		return -1;
	v = ev_expr(&e);
	if (e.fail || e.i != e.syn.nr_toks)
		v = -1;
	astra_syn_release(&e.syn);
	return v;
}

long long astra_rk_at_shape(const struct astra_rk *rk, const char *expr, size_t s)
{
	return s < rk->k->pragma.nr_shapes ? eval_at_shape(rk, expr, s) : -1;
}

long long astra_rk_max_over_shapes(const struct astra_rk *rk, const char *expr)
{
	long long best = -1, v;
	size_t s;
	for (s = 0; s < rk->k->pragma.nr_shapes; s++) {
		v = eval_at_shape(rk, expr, s);
		if (v < 0)
			return -1;
		if (v > best)
			best = v;
	}
	return best;
}

long long astra_rk_at_largest_shape(const struct astra_rk *rk, const char *expr)
{
	const struct astra_pragma *p = &rk->k->pragma;
	long long best = -1, n, c;
	size_t s, b, at = 0;
	for (s = 0; s < p->nr_shapes; s++) {
		for (b = 0, n = 0; b < p->nr_buffers; b++) {
			c = eval_at_shape(rk, p->buffers[b].count, s);
			if (c < 0)
				return -1;
			n += c;
		}
		if (n > best) {
			best = n;
			at = s;
		}
	}
	return best < 0 ? -1 : eval_at_shape(rk, expr, at);
}

/* --- steps --- */

int astra_rk_step(struct astra_rk *rk, const char *step, struct astra_buf *why)
{
	const char *eq = strchr(step, '=');
	char *name = eq ? xstrndup(step, (size_t)(eq - step)) : xstrdup(step);
	const struct astra_rule *r = astra_rules_find(name);
	struct astra_rk work;
	size_t why_len = why->len;
	int ret;

	if (!r) {
		astra_buf_addf(why, "no rule named '%s'", name);
		free(name);
		return -1;
	}
	if ((r->flags & RULE_SWEEP) && !eq) {
		astra_buf_addf(why, "rule '%s' needs an argument (%s=VALUE)", name, name);
		free(name);
		return -1;
	}
	free(name);
	if (astra_rk_parse(rk) == 0) {
		astra_rk_copy(&work, rk);
		ret = r->apply(&work, eq ? eq + 1 : NULL, why);
		if (ret == 1)
			goto applied;
		astra_rk_release(&work);
		if (ret < 0)
			return ret;
	} else {
		ret = 0;
	}
	/*
	 * Declined (or unreadable) as written: the same kernel in the rules'
	 * wording (its macros expanded, its helpers inlined, ...), once.
	 */
	if (!rk->canonical) {
		struct astra_rk canon;
		struct astra_buf why2 = ASTRA_BUF_INIT;
		int n;
		astra_rk_copy(&canon, rk);
		canon.canonical = 1;
		n = astra_canon(&canon, NULL);
		if (n > 0 && astra_rk_parse(&canon) == 0) {
			astra_rk_copy(&work, &canon);
			ret = r->apply(&work, eq ? eq + 1 : NULL, &why2);
			if (ret == 1) {
				astra_rk_release(&canon);
				astra_buf_release(&why2);
				goto applied;
			}
			astra_rk_release(&work);
			if (!why->len || rk->parsed < 0) {
				astra_buf_reset(why);
				astra_buf_add(why, why2.buf ? why2.buf : "", why2.len);
			}
		}
		astra_rk_release(&canon);
		astra_buf_release(&why2);
		if (ret < 0)
			return ret;
	}
	if (rk->parsed < 0 && !why->len)
		astra_buf_adds(why, "the kernel's text could not be read by the rules' parser");
	return 0;
applied:
	astra_buf_setlen(why, why_len);
	astra_vec_push(&work.steps, step);
	astra_rk_release(rk);
	*rk = work;
	/* the parse cache pointed into work's text, which rk now owns */
	return 1;
}

static uint32_t fnv1a(const char *s, uint32_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static void replace_all(struct astra_buf *out, const char *text, const char *from, const char *to)
{
	size_t n = strlen(from);
	const char *p;
	while ((p = strstr(text, from)) != NULL) {
		astra_buf_add(out, text, (size_t)(p - text));
		astra_buf_adds(out, to);
		text = p + n;
	}
	astra_buf_adds(out, text);
}

void astra_rk_finish(struct astra_rk *rk, struct astra_variant *out)
{
	struct astra_buf b = ASTRA_BUF_INIT, o = ASTRA_BUF_INIT, fin = ASTRA_BUF_INIT;
	char sfx[16];
	size_t i;

	astra_helpers_text(rk->helpers, &b);
	if (rk->own_geometry) {
		astra_buf_addf(&b, "#pragma astra launch(grid=%s, block=%s", rk->grid ? rk->grid : "1",
			       rk->block ? rk->block : "1");
		if (rk->shmem)
			astra_buf_addf(&b, ", shmem=%s", rk->shmem);
		astra_buf_adds(&b, ")\n");
	}
	astra_buf_adds(&b, rk->text);
	if (b.len && b.buf[b.len - 1] != '\n')
		astra_buf_addch(&b, '\n');
	snprintf(sfx, sizeof(sfx), "h%08x", (unsigned)fnv1a(b.buf, 2166136261u));
	replace_all(&fin, b.buf, ASTRA_SFX, sfx);

	memset(out, 0, sizeof(*out));
	out->text = astra_buf_detach(&fin, NULL);
	if (rk->own_geometry) {
		out->grid = dup_or_null(rk->grid);
		out->block = dup_or_null(rk->block);
		out->shmem = dup_or_null(rk->shmem);
	}
	astra_buf_adds(&o, "rules: ");
	for (i = 0; i < rk->steps.nr; i++)
		astra_buf_addf(&o, "%s%s", i ? "," : "", rk->steps.v[i]);
	out->origin = astra_buf_detach(&o, NULL);
	astra_buf_release(&b);
}

int astra_rules_build(const struct astra_kernel *k, int cc, const char *steps,
		      struct astra_variant *out, struct astra_buf *why)
{
	struct astra_rk rk;
	struct astra_vec v = ASTRA_VEC_INIT;
	const char *p = steps;
	size_t i;
	int ret = 1;

	while (*p) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		char *s = xstrndup(p, n);
		char *a = s, *z = s + n;
		while (isspace((unsigned char)*a))
			a++;
		while (z > a && isspace((unsigned char)z[-1]))
			*--z = '\0';
		if (*a)
			astra_vec_push(&v, a);
		free(s);
		p += n;
		if (*p == ',')
			p++;
	}
	astra_rk_init(&rk, k, cc);
	for (i = 0; i < v.nr && ret == 1; i++) {
		struct astra_buf w = ASTRA_BUF_INIT;
		ret = astra_rk_step(&rk, v.v[i], &w);
		if (ret != 1)
			astra_buf_addf(why, "%s: %s", v.v[i], w.buf);
		astra_buf_release(&w);
	}
	if (ret == 1)
		astra_rk_finish(&rk, out);
	astra_rk_release(&rk);
	astra_vec_clear(&v);
	return ret;
}
