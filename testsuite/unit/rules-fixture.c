/*
 * rules-fixture.c - test-only kernel reader for the rules' tests (see
 * rules-fixture.h).
 */
#include "autoconfig.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "astra-cc/buf.h"
#include "astra-cc/util.h"
#include "astra-cc/vec.h"
#include "rules/syntax.h"
#include "testsuite/unit/rules-fixture.h"

#define NONE ((size_t)-1)

static char *trim(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

/* Split s at commas outside brackets; calls fn for each trimmed part. */
static void split_commas(const char *s, size_t n, void (*fn)(const char *part, void *data), void *data)
{
	size_t i, start = 0;
	int depth = 0;
	for (i = 0; i <= n; i++) {
		char c = i < n ? s[i] : ',';
		if (c == '(' || c == '[' || c == '{' || c == '<')
			depth++;
		else if (c == ')' || c == ']' || c == '}' || c == '>')
			depth--;
		else if (c == ',' && depth <= 0) {
			char *p = trim(s + start, i - start);
			if (*p)
				fn(p, data);
			free(p);
			start = i + 1;
		}
	}
}

static void add_assign(const char *part, void *data)
{
	struct astra_assign_set *set = data;
	const char *eq = strchr(part, '=');
	if (!eq)
		return;
	ALLOC_GROW(set->items, set->nr + 1, set->alloc);
	set->items[set->nr].name = trim(part, (size_t)(eq - part));
	set->items[set->nr].value = trim(eq + 1, strlen(eq + 1));
	set->nr++;
}

static void add_launch(const char *part, void *data)
{
	struct astra_pragma *p = data;
	const char *eq = strchr(part, '=');
	char *name, *value;
	if (!eq)
		return;
	name = trim(part, (size_t)(eq - part));
	value = trim(eq + 1, strlen(eq + 1));
	if (!strcmp(name, "grid"))
		p->grid = value;
	else if (!strcmp(name, "block"))
		p->block = value;
	else if (!strcmp(name, "shmem"))
		p->shmem = value;
	else
		free(value);
	free(name);
}

static void parse_pragma_line(struct astra_pragma *p, const char *s)
{
	while (*s) {
		const char *name, *open;
		size_t nlen;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		name = s;
		while (isalnum((unsigned char)*s) || *s == '_')
			s++;
		nlen = (size_t)(s - name);
		if (!nlen)
			return;
		while (isspace((unsigned char)*s))
			s++;
		if (*s != '(') {
			if (nlen == 7 && !memcmp(name, "noalias", 7))
				p->flags |= ASTRA_PRAGMA_NOALIAS;
			else if (nlen == 3 && !memcmp(name, "off", 3))
				p->flags |= ASTRA_PRAGMA_OFF;
			else
				p->flags |= ASTRA_PRAGMA_OPTIMIZE;
			continue;
		}
		open = s + 1;
		{
			int depth = 0;
			for (; *s; s++) {
				if (*s == '(')
					depth++;
				else if (*s == ')' && --depth == 0)
					break;
			}
			if (!*s)
				return;
		}
		if (nlen == 6 && !memcmp(name, "launch", 6)) {
			split_commas(open, (size_t)(s - open), add_launch, p);
		} else if (nlen == 5 && !memcmp(name, "types", 5)) {
			ALLOC_GROW(p->types, p->nr_types + 1, p->alloc_types);
			memset(&p->types[p->nr_types], 0, sizeof(p->types[0]));
			split_commas(open, (size_t)(s - open), add_assign, &p->types[p->nr_types]);
			p->nr_types++;
		} else if (nlen == 6 && !memcmp(name, "shapes", 6)) {
			ALLOC_GROW(p->shapes, p->nr_shapes + 1, p->alloc_shapes);
			memset(&p->shapes[p->nr_shapes], 0, sizeof(p->shapes[0]));
			split_commas(open, (size_t)(s - open), add_assign, &p->shapes[p->nr_shapes]);
			p->nr_shapes++;
		} else if (nlen == 7 && !memcmp(name, "scalars", 7)) {
			split_commas(open, (size_t)(s - open), add_assign, &p->scalars);
		} else if (nlen == 4 && !memcmp(name, "tune", 4)) {
			const char *colon = memchr(open, ':', (size_t)(s - open));
			if (colon) {
				struct astra_tunable *t;
				const char *v = colon + 1;
				ALLOC_GROW(p->tunables, p->nr_tunables + 1, p->alloc_tunables);
				t = &p->tunables[p->nr_tunables++];
				memset(t, 0, sizeof(*t));
				t->name = trim(open, (size_t)(colon - open));
				while (v < s) {
					const char *w;
					while (v < s && isspace((unsigned char)*v))
						v++;
					w = v;
					while (v < s && !isspace((unsigned char)*v))
						v++;
					if (v > w) {
						ALLOC_GROW(t->values, t->nr + 1, t->alloc);
						t->values[t->nr++] = xstrndup(w, (size_t)(v - w));
					}
				}
			}
		}
		p->flags |= ASTRA_PRAGMA_OPTIMIZE;
		s++;
	}
}

/* Read the #pragma astra lines that end right before byte off. */
static void read_pragma(struct astra_kernel *k, const char *text, size_t off)
{
	size_t ls = off, first = off;
	struct astra_vec lines = ASTRA_VEC_INIT;
	size_t i;
	while (ls > 0 && text[ls - 1] != '\n')
		ls--;
	while (ls > 0) {
		size_t ps = ls - 1, a;
		while (ps > 0 && text[ps - 1] != '\n')
			ps--;
		a = ps;
		while (text[a] == ' ' || text[a] == '\t')
			a++;
		if (strncmp(text + a, "#pragma", 7))
			break;
		a += 7;
		while (text[a] == ' ' || text[a] == '\t')
			a++;
		if (strncmp(text + a, "astra", 5))
			break;
		{
			char *l = xstrndup(text + a + 5, ls - 1 - (a + 5));
			astra_vec_insert(&lines, 0, l);
			free(l);
		}
		first = ps;
		ls = ps;
	}
	for (i = 0; i < lines.nr; i++)
		parse_pragma_line(&k->pragma, lines.v[i]);
	k->pragma_start = first;
	k->pragma_end = off;
	astra_vec_clear(&lines);
}

static void add_param(struct astra_kernel *k, const struct astra_syn *syn, size_t t0, size_t t1)
{
	struct astra_param *p;
	size_t name = NONE, i, last_star = NONE;
	for (i = t0; i < t1; i++) {
		if (syn->toks[i].kind == SYN_IDENT && !astra_syn_is(syn, i, "const") && !astra_syn_is(syn, i, "__restrict__"))
			name = i;
		if (astra_syn_is(syn, i, "*"))
			last_star = i;
	}
	if (name == NONE)
		return;
	k->params = xrealloc(k->params, (k->nr_params + 1) * sizeof(*k->params));
	p = &k->params[k->nr_params++];
	memset(p, 0, sizeof(*p));
	p->name = astra_syn_tokstr(syn, name);
	p->type = astra_syn_text(syn, t0, name);
	p->is_pointer = last_star != NONE;
	if (p->is_pointer) {
		struct astra_buf b = ASTRA_BUF_INIT;
		for (i = t0; i < last_star; i++) {
			if (astra_syn_is(syn, i, "const")) {
				p->is_const = 1;
				continue;
			}
			if (astra_syn_is(syn, i, "volatile") || astra_syn_is(syn, i, "__restrict__"))
				continue;
			if (b.len)
				astra_buf_addch(&b, ' ');
			astra_buf_add(&b, syn->text + syn->toks[i].off, syn->toks[i].len);
		}
		p->elem_type = astra_buf_detach(&b, NULL);
	}
}

static int add_kernel(struct fixture *fx, const struct astra_syn *syn, size_t g)
{
	struct astra_kernel *k;
	size_t start = g, i, name = NONE, open, close, body, end;
	/* back over qualifiers and the template header */
	for (;;) {
		if (start > 0 && (astra_syn_is(syn, start - 1, "static") || astra_syn_is(syn, start - 1, "inline"))) {
			start--;
			continue;
		}
		if (start > 1 && syn->toks[start - 1].kind == SYN_STRING && astra_syn_is(syn, start - 2, "extern")) {
			start -= 2;
			continue;
		}
		if (start > 0 && astra_syn_is(syn, start - 1, ">")) {
			size_t j = start - 1;
			while (j > 0 && !astra_syn_is(syn, j, "template"))
				j--;
			if (!astra_syn_is(syn, j, "template"))
				return -1;
			start = j;
			continue;
		}
		break;
	}
	for (i = g + 1; i < syn->nr_toks; i++) {
		if (astra_syn_is(syn, i, "__launch_bounds__")) {
			i = astra_syn_match(syn, i + 1);
			continue;
		}
		if (astra_syn_is_ident(syn, i) && astra_syn_is(syn, i + 1, "(")) {
			name = i;
			break;
		}
		if (astra_syn_is(syn, i, ";") || astra_syn_is(syn, i, "<"))
			return 0; /* an explicit instantiation or a declaration */
	}
	if (name == NONE)
		return -1;
	open = name + 1;
	close = astra_syn_match(syn, open);
	if (close == NONE)
		return -1;
	body = close + 1;
	while (body < syn->nr_toks && !astra_syn_is(syn, body, "{")) {
		if (astra_syn_is(syn, body, ";"))
			return 0; /* a declaration or an explicit instantiation */
		body++;
	}
	end = astra_syn_match(syn, body);
	if (end == NONE)
		return -1;

	fx->kernels = xrealloc(fx->kernels, (fx->nr + 1) * sizeof(*fx->kernels));
	k = &fx->kernels[fx->nr++];
	memset(k, 0, sizeof(*k));
	k->name = astra_syn_tokstr(syn, name);
	k->file = xstrdup("test.cu");
	k->start = astra_syn_off(syn, start);
	k->end = astra_syn_end(syn, end);
	k->body_start = astra_syn_off(syn, body);
	k->text = xstrndup(fx->text + k->start, k->end - k->start);
	k->is_template = astra_syn_is(syn, start, "template");
	if (k->is_template) {
		size_t a = start + 2, b;
		while (a < g && !astra_syn_is(syn, a - 1, ">")) {
			for (b = a; b < g && !astra_syn_is(syn, b, ",") && !astra_syn_is(syn, b, ">"); b++)
				;
			k->tmpl_params = xrealloc(k->tmpl_params, (k->nr_tmpl + 1) * sizeof(char *));
			k->tmpl_kinds = xrealloc(k->tmpl_kinds, (k->nr_tmpl + 1) * sizeof(char *));
			k->tmpl_params[k->nr_tmpl] = astra_syn_tokstr(syn, b - 1);
			k->tmpl_kinds[k->nr_tmpl] = astra_syn_tokstr(syn, a);
			k->nr_tmpl++;
			a = b + 1;
		}
	}
	for (i = g; i < name; i++)
		if (astra_syn_is(syn, i, "__launch_bounds__"))
			k->launch_bounds = astra_syn_text(syn, i + 2, astra_syn_match(syn, i + 1));
	{
		size_t seg = open + 1;
		int depth = 0;
		for (i = open + 1; i <= close; i++) {
			if (astra_syn_is(syn, i, "<") || astra_syn_is(syn, i, "("))
				depth++;
			else if (astra_syn_is(syn, i, ">") || (astra_syn_is(syn, i, ")") && i < close))
				depth--;
			if ((i == close || astra_syn_is(syn, i, ",")) && depth == 0) {
				if (i > seg)
					add_param(k, syn, seg, i);
				seg = i + 1;
			}
		}
	}
	read_pragma(k, fx->text, k->start);
	return 0;
}

int fixture_load_text(struct fixture *fx, const char *text)
{
	struct astra_syn syn;
	size_t i;
	memset(fx, 0, sizeof(*fx));
	fx->text = xstrdup(text);
	fx->len = strlen(text);
	if (astra_syn_lex(&syn, fx->text, fx->len) < 0) {
		fprintf(stderr, "fixture: cannot lex\n");
		return -1;
	}
	for (i = 0; i < syn.nr_toks; i++)
		if (astra_syn_is(&syn, i, "__global__") && add_kernel(fx, &syn, i) < 0) {
			fprintf(stderr, "fixture: cannot read the kernel at byte %zu\n", syn.toks[i].off);
			astra_syn_release(&syn);
			return -1;
		}
	astra_syn_release(&syn);
	return 0;
}

int fixture_load(struct fixture *fx, const char *path)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	int r;
	if (astra_buf_read_file(&b, path, 0) < 0) {
		fprintf(stderr, "fixture: cannot read %s\n", path);
		return -1;
	}
	r = fixture_load_text(fx, b.buf);
	astra_buf_release(&b);
	return r;
}

static void release_set(struct astra_assign_set *s)
{
	size_t i;
	for (i = 0; i < s->nr; i++) {
		free(s->items[i].name);
		free(s->items[i].value);
	}
	free(s->items);
}

void fixture_release(struct fixture *fx)
{
	size_t i, j;
	for (i = 0; i < fx->nr; i++) {
		struct astra_kernel *k = &fx->kernels[i];
		struct astra_pragma *p = &k->pragma;
		free(k->name);
		free(k->file);
		free(k->text);
		free(k->launch_bounds);
		for (j = 0; j < k->nr_tmpl; j++) {
			free(k->tmpl_params[j]);
			free(k->tmpl_kinds[j]);
		}
		free(k->tmpl_params);
		free(k->tmpl_kinds);
		for (j = 0; j < k->nr_params; j++) {
			free(k->params[j].name);
			free(k->params[j].type);
			free(k->params[j].elem_type);
		}
		free(k->params);
		free(p->grid);
		free(p->block);
		free(p->shmem);
		for (j = 0; j < p->nr_types; j++)
			release_set(&p->types[j]);
		free(p->types);
		for (j = 0; j < p->nr_shapes; j++)
			release_set(&p->shapes[j]);
		free(p->shapes);
		release_set(&p->scalars);
		for (j = 0; j < p->nr_tunables; j++) {
			size_t v;
			for (v = 0; v < p->tunables[j].nr; v++)
				free(p->tunables[j].values[v]);
			free(p->tunables[j].values);
			free(p->tunables[j].name);
		}
		free(p->tunables);
	}
	free(fx->kernels);
	free(fx->text);
	memset(fx, 0, sizeof(*fx));
}

const struct astra_kernel *fixture_kernel(const struct fixture *fx, const char *name)
{
	size_t i;
	for (i = 0; i < fx->nr; i++)
		if (!name || !strcmp(fx->kernels[i].name, name))
			return &fx->kernels[i];
	return NULL;
}

void fixture_variant_release(struct astra_variant *v)
{
	free(v->text);
	free(v->grid);
	free(v->block);
	free(v->shmem);
	free(v->origin);
	memset(v, 0, sizeof(*v));
}
