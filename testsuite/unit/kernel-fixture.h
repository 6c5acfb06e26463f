/*
 * kernel-fixture.h - build a struct astra_kernel by hand for unit tests.
 *
 * The verifier's tests must not depend on the libclang extraction (another
 * module, tested on its own), so they describe a kernel the way extract.c
 * would: its text and byte range in the file, its parameters, its pragma.
 * Everything is allocated with the project's allocators and freed by
 * fixture_release().
 */
#ifndef ASTRA_KERNEL_FIXTURE_H
#define ASTRA_KERNEL_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "front/kernel.h"

struct fixture {
	struct astra_tu tu;
	struct astra_kernel k;
};

static void fx_assign(struct astra_assign_set *s, const char *name, const char *value)
{
	s->items = xrealloc(s->items, (s->nr + 1) * sizeof(*s->items));
	s->items[s->nr].name = xstrdup(name);
	s->items[s->nr].value = xstrdup(value);
	s->nr++;
}

/* Add a shape from "a=1 b=2" (no spaces inside values). */
static void fx_shape(struct fixture *f, const char *spec)
{
	struct astra_pragma *p = &f->k.pragma;
	char *s = xstrdup(spec), *tok, *save = NULL;
	p->shapes = xrealloc(p->shapes, (p->nr_shapes + 1) * sizeof(*p->shapes));
	memset(&p->shapes[p->nr_shapes], 0, sizeof(*p->shapes));
	for (tok = strtok_r(s, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		*eq = '\0';
		fx_assign(&p->shapes[p->nr_shapes], tok, eq + 1);
	}
	p->nr_shapes++;
	free(s);
}

static void fx_types(struct fixture *f, const char *name, const char *value)
{
	struct astra_pragma *p = &f->k.pragma;
	p->types = xrealloc(p->types, (p->nr_types + 1) * sizeof(*p->types));
	memset(&p->types[p->nr_types], 0, sizeof(*p->types));
	fx_assign(&p->types[p->nr_types], name, value);
	p->nr_types++;
}

static void fx_buffer(struct fixture *f, const char *name, const char *count, int output)
{
	struct astra_pragma *p = &f->k.pragma;
	p->buffers = xrealloc(p->buffers, (p->nr_buffers + 1) * sizeof(*p->buffers));
	p->buffers[p->nr_buffers].name = xstrdup(name);
	p->buffers[p->nr_buffers].count = xstrdup(count);
	p->nr_buffers++;
	if (output) {
		p->outputs = xrealloc(p->outputs, (p->nr_outputs + 1) * sizeof(char *));
		p->outputs[p->nr_outputs++] = xstrdup(name);
	}
}

static void fx_range(struct fixture *f, const char *name, const char *lo, const char *hi)
{
	struct astra_pragma *p = &f->k.pragma;
	p->ranges = xrealloc(p->ranges, (p->nr_ranges + 1) * sizeof(*p->ranges));
	p->ranges[p->nr_ranges].name = xstrdup(name);
	p->ranges[p->nr_ranges].lo = xstrdup(lo);
	p->ranges[p->nr_ranges].hi = xstrdup(hi);
	p->nr_ranges++;
}

/* type as written; pointers get elem_type/is_const from it. */
static void fx_param(struct fixture *f, const char *type, const char *name)
{
	struct astra_kernel *k = &f->k;
	struct astra_param *prm;
	k->params = xrealloc(k->params, (k->nr_params + 1) * sizeof(*k->params));
	prm = &k->params[k->nr_params++];
	memset(prm, 0, sizeof(*prm));
	prm->name = xstrdup(name);
	prm->type = xstrdup(type);
	prm->is_pointer = strchr(type, '*') != NULL;
	if (prm->is_pointer) {
		char *e = xstrdup(type), *star = strchr(e, '*');
		char *b = e;
		*star = '\0';
		prm->is_const = strstr(e, "const") != NULL;
		if (prm->is_const)
			b = strstr(e, "const") + 5;
		while (*b == ' ')
			b++;
		while (*e && e[strlen(e) - 1] == ' ')
			e[strlen(e) - 1] = '\0';
		prm->elem_type = xstrdup(b);
		free(e);
	}
}

/*
 * tu_text contains the kernel; `name` is the kernel; `start_marker` is the
 * text the definition starts with (e.g. "template" or "__global__").
 */
static void fx_init(struct fixture *f, const char *path, const char *tu_text, const char *name,
		    const char *start_marker)
{
	const char *start, *end;
	int depth = 0;
	memset(f, 0, sizeof(*f));
	f->tu.path = xstrdup(path);
	f->tu.text = xstrdup(tu_text);
	f->tu.len = strlen(tu_text);
	start = strstr(f->tu.text, start_marker);
	for (end = strchr(start, '{'); *end; end++) {
		if (*end == '{')
			depth++;
		else if (*end == '}' && --depth == 0)
			break;
	}
	f->k.name = xstrdup(name);
	f->k.file = xstrdup(path);
	f->k.start = (size_t)(start - f->tu.text);
	f->k.end = (size_t)(end + 1 - f->tu.text);
	f->k.body_start = (size_t)(strchr(start, '{') - f->tu.text);
	f->k.text = xstrndup(start, f->k.end - f->k.start);
}

static void fx_template(struct fixture *f, const char *kind, const char *param)
{
	struct astra_kernel *k = &f->k;
	k->is_template = 1;
	k->tmpl_params = xrealloc(k->tmpl_params, (k->nr_tmpl + 1) * sizeof(char *));
	k->tmpl_kinds = xrealloc(k->tmpl_kinds, (k->nr_tmpl + 1) * sizeof(char *));
	k->tmpl_params[k->nr_tmpl] = xstrdup(param);
	k->tmpl_kinds[k->nr_tmpl] = xstrdup(kind);
	k->nr_tmpl++;
}

/* A name of the kernel's file that the kernel or its pragma uses, with its definition. */
static void fx_dep(struct fixture *f, const char *name, const char *text)
{
	struct astra_kernel *k = &f->k;
	k->deps = xrealloc(k->deps, (k->nr_deps + 1) * sizeof(char *));
	k->dep_texts = xrealloc(k->dep_texts, (k->nr_deps + 1) * sizeof(char *));
	k->deps[k->nr_deps] = xstrdup(name);
	k->dep_texts[k->nr_deps] = xstrdup(text);
	k->nr_deps++;
}

static void fx_launch(struct fixture *f, const char *grid, const char *block)
{
	f->k.pragma.grid = xstrdup(grid);
	f->k.pragma.block = xstrdup(block);
}

static void fx_free_set(struct astra_assign_set *s)
{
	size_t i;
	for (i = 0; i < s->nr; i++) {
		free(s->items[i].name);
		free(s->items[i].value);
	}
	free(s->items);
}

static void fixture_release(struct fixture *f)
{
	struct astra_pragma *p = &f->k.pragma;
	size_t i;
	for (i = 0; i < p->nr_shapes; i++)
		fx_free_set(&p->shapes[i]);
	free(p->shapes);
	for (i = 0; i < p->nr_types; i++)
		fx_free_set(&p->types[i]);
	free(p->types);
	fx_free_set(&p->scalars);
	for (i = 0; i < p->nr_buffers; i++) {
		free(p->buffers[i].name);
		free(p->buffers[i].count);
	}
	free(p->buffers);
	for (i = 0; i < p->nr_outputs; i++)
		free(p->outputs[i]);
	free(p->outputs);
	for (i = 0; i < p->nr_ranges; i++) {
		free(p->ranges[i].name);
		free(p->ranges[i].lo);
		free(p->ranges[i].hi);
	}
	free(p->ranges);
	free(p->grid);
	free(p->block);
	free(p->shmem);
	free(p->flops);
	for (i = 0; i < f->k.nr_params; i++) {
		free(f->k.params[i].name);
		free(f->k.params[i].type);
		free(f->k.params[i].elem_type);
	}
	free(f->k.params);
	for (i = 0; i < f->k.nr_tmpl; i++) {
		free(f->k.tmpl_params[i]);
		free(f->k.tmpl_kinds[i]);
	}
	free(f->k.tmpl_params);
	free(f->k.tmpl_kinds);
	for (i = 0; i < f->k.nr_deps; i++) {
		free(f->k.deps[i]);
		free(f->k.dep_texts[i]);
	}
	free(f->k.deps);
	free(f->k.dep_texts);
	free(f->k.name);
	free(f->k.file);
	free(f->k.text);
	free(f->tu.path);
	free(f->tu.text);
}

#endif
