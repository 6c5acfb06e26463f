/*
 * harness.c - generate the test program for a kernel and its candidates
 * (see harness.h for the layout, doc/verify.md for the protocol).
 *
 * Everything the pragma says is C++ text and is emitted verbatim into the
 * program, in a scope where the kernel's scalar parameters and the shape's
 * names are variables: nvcc evaluates sizes, geometry, ranges and flops, so
 * astra-cc has no expression evaluator and no second opinion about C++.
 */
#include "autoconfig.h"

#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/util.h"
#include "lib/vec.h"
#include "verify/harness.h"
#include "verify/screen.h"

/* Lookups on the pragma. */
static const struct astra_bufspec *find_buffer(const struct astra_pragma *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->nr_buffers; i++)
		if (!strcmp(p->buffers[i].name, name))
			return &p->buffers[i];
	return NULL;
}

static int is_output(const struct astra_pragma *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->nr_outputs; i++)
		if (!strcmp(p->outputs[i], name))
			return 1;
	return 0;
}

static const struct astra_param *find_param(const struct astra_kernel *k, const char *name)
{
	size_t i;
	for (i = 0; i < k->nr_params; i++)
		if (k->params[i].name && !strcmp(k->params[i].name, name))
			return &k->params[i];
	return NULL;
}

char *astra_harness_launcher_file(const char *name)
{
	return xasprintf("%s (launcher)", name);
}

char *astra_harness_geometry_file(const char *name)
{
	return xasprintf("%s (geometry)", name);
}

static void add_c_string(struct astra_buf *b, const char *s)
{
	astra_buf_addch(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			astra_buf_addch(b, '\\');
		if (*s == '\n') {
			astra_buf_adds(b, "\\n");
			continue;
		}
		astra_buf_addch(b, *s);
	}
	astra_buf_addch(b, '"');
}

/*
 * Append s inside a C comment: a star followed by a slash would end the
 * comment (a source path holding one, then code, then the start of a new
 * comment, would inject that code into the test program), so the pair is
 * broken up; newlines become blanks.
 */
static void add_comment_text(struct astra_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '*' && s[1] == '/')
			astra_buf_adds(b, "* ");
		else if (*s == '\n' || *s == '\r')
			astra_buf_addch(b, ' ');
		else
			astra_buf_addch(b, *s);
	}
}

/* A parameter's type without __restrict__ (for locals and casts). */
static char *plain_type(const char *type)
{
	static const char *const drop[] = { "__restrict__", "__restrict", "restrict" };
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	astra_buf_adds(&b, type);
	for (i = 0; i < ARRAY_SIZE(drop); i++) {
		char *p;
		size_t n = strlen(drop[i]);
		while ((p = strstr(b.buf, drop[i])) != NULL) {
			int left = p == b.buf || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
						  (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'));
			char c = p[n];
			int right = !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				      (c >= '0' && c <= '9'));
			if (!left || !right)
				break;
			memmove(p, p + n, strlen(p + n) + 1);
			b.len -= n;
		}
	}
	astra_buf_rtrim(&b);
	return astra_buf_detach(&b, NULL);
}

struct gen {
	const struct astra_harness *h;
	const struct astra_kernel *k;
	const struct astra_pragma *p;
	struct astra_buf *out;
	struct astra_buf *why;
	struct astra_vec ns;        /* the kernel's enclosing namespaces */
	char *qual;                 /* "::a::b" (empty at global scope) */
	int open_braces;
};

static int fail(struct gen *g, const char *fmt, ...) ASTRA_PRINTF(2, 3);
static int fail(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	astra_buf_vaddf(g->why, fmt, ap);
	va_end(ap);
	return -1;
}

static void open_ns(struct gen *g)
{
	size_t i;
	for (i = 0; i < g->ns.nr; i++)
		astra_buf_addf(g->out, "namespace %s { ", g->ns.v[i]);
	if (g->ns.nr)
		astra_buf_addch(g->out, '\n');
}

static void close_ns(struct gen *g)
{
	size_t i;
	for (i = 0; i < g->ns.nr; i++)
		astra_buf_adds(g->out, "} ");
	if (g->ns.nr)
		astra_buf_addch(g->out, '\n');
}

/* "<T, VEC>" for instantiation set (NULL: none), or "" for a plain kernel. */
static char *template_args(struct gen *g, const struct astra_assign_set *set)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	size_t i;
	if (!g->k->is_template || !set)
		return xstrdup("");
	for (i = 0; i < g->k->nr_tmpl; i++) {
		if (!astra_assign_get(set, g->k->tmpl_params[i]))
			break; /* the rest keep their defaults */
		astra_buf_adds(&b, i ? ", " : "<");
		astra_buf_adds(&b, g->k->tmpl_params[i]);
	}
	if (b.len)
		astra_buf_adds(&b, ">");
	return astra_buf_detach(&b, NULL);
}

static void param_list(struct gen *g, struct astra_buf *b)
{
	size_t i;
	for (i = 0; i < g->k->nr_params; i++)
		astra_buf_addf(b, ", %s %s", g->k->params[i].type, g->k->params[i].name);
}

static void arg_names(struct gen *g, struct astra_buf *b)
{
	size_t i;
	for (i = 0; i < g->k->nr_params; i++)
		astra_buf_addf(b, "%s%s", i ? ", " : "", g->k->params[i].name);
}

/*
 * A launch with more than 48 KiB of dynamic shared memory needs the
 * kernel's cudaFuncAttributeMaxDynamicSharedMemorySize raised first, as
 * the user's own code does for the original (each version is a function
 * of its own, with its own attribute).  ns: "" for the original, else the
 * candidate's namespace with "::".
 */
static void big_shmem(struct gen *g, const char *bytes, const char *ns, const char *targs)
{
	astra_buf_addf(g->out, "\tif (%s > 48 * 1024)\n\t\t(void)cudaFuncSetAttribute((const void *)&%s::%s%s%s, "
		       "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)%s);\n",
		       bytes, g->qual, ns, g->k->name, targs, bytes);
}

static void emit_launchers(struct gen *g, const char *targs)
{
	struct astra_buf params = ASTRA_BUF_INIT, args = ASTRA_BUF_INIT;
	size_t c;
	param_list(g, &params);
	arg_names(g, &args);

	astra_buf_addf(g->out, "#line 1 \"" ASTRA_HARNESS_CASES_FILE "\"\n"
		       "static void astra_launch_0(dim3 astra_grid, dim3 astra_block, size_t astra_shmem, "
		       "cudaStream_t astra_stream%s)\n{\n",
		       params.buf);
	big_shmem(g, "astra_shmem", "", targs);
	astra_buf_addf(g->out, "\t%s::%s%s<<<astra_grid, astra_block, astra_shmem, astra_stream>>>(%s);\n}\n",
		       g->qual, g->k->name, targs, args.buf);
	for (c = 0; c < g->h->nr_cands; c++) {
		const struct astra_harness_cand *cd = &g->h->cands[c];
		char *lf = astra_harness_launcher_file(cd->name);
		char *gf = astra_harness_geometry_file(cd->name);
		astra_buf_adds(g->out, "#line 1 ");
		add_c_string(g->out, lf);
		astra_buf_addf(g->out, "\nstatic_assert(std::is_same<decltype(&%s::%s%s), "
			       "decltype(&%s::astra_cand_%zu::%s%s)>::value, \"astra-cc: the candidate changes "
			       "the kernel's signature\");\n",
			       g->qual, g->k->name, targs, g->qual, c, g->k->name, targs);
		astra_buf_addf(g->out, "static void astra_launch_%zu(dim3 astra_grid, dim3 astra_block, "
			       "size_t astra_shmem, cudaStream_t astra_stream%s)\n{\n"
			       "\t(void)astra_grid; (void)astra_block; (void)astra_shmem;\n",
			       c + 1, params.buf);
		/* min and max of mixed types (a 64-bit count and an int cap) in the candidate's geometry */
		astra_buf_adds(g->out, "\tusing ::astra_rt::geo::min;\n\tusing ::astra_rt::geo::max;\n");
		astra_buf_adds(g->out, "#line 1 ");
		add_c_string(g->out, gf);
		astra_buf_addf(g->out, "\n\tdim3 astra_g = %s%s%s;\n\tdim3 astra_b = %s%s%s;\n"
			       "\tsize_t astra_s = %s%s%s;\n",
			       cd->grid ? "dim3(" : "", cd->grid ? cd->grid : "astra_grid", cd->grid ? ")" : "",
			       cd->block ? "dim3(" : "", cd->block ? cd->block : "astra_block", cd->block ? ")" : "",
			       cd->shmem ? "(size_t)(" : "", cd->shmem ? cd->shmem : "astra_shmem",
			       cd->shmem ? ")" : "");
		astra_buf_adds(g->out, "#line 2 ");
		add_c_string(g->out, lf);
		astra_buf_addch(g->out, '\n');
		{
			char *ns = xasprintf("astra_cand_%zu::", c);
			big_shmem(g, "astra_s", ns, targs);
			free(ns);
		}
		astra_buf_addf(g->out, "\t%s::astra_cand_%zu::%s%s<<<astra_g, astra_b, astra_s, astra_stream>>>(%s);\n}\n",
			       g->qual, c, g->k->name, targs, args.buf);
		free(lf);
		free(gf);
	}
	astra_buf_release(&params);
	astra_buf_release(&args);
}

/* Declare name = value in the case's scope, typed as the parameter if it is one. */
static void emit_value(struct gen *g, const char *name, const char *value)
{
	const struct astra_param *prm = find_param(g->k, name);
	if (prm && !prm->is_pointer) {
		char *t = plain_type(prm->type);
		astra_buf_addf(g->out, "\t%s %s = (%s)(%s);\n\t(void)%s;\n", t, name, t, value, name);
		free(t);
	} else if (!prm) {
		astra_buf_addf(g->out, "\tconst auto %s = (%s);\n\t(void)%s;\n", name, value, name);
	}
}

static int emit_case(struct gen *g, size_t ci, const struct astra_assign_set *types,
		     const struct astra_assign_set *shape)
{
	const struct astra_kernel *k = g->k;
	const struct astra_pragma *p = g->p;
	struct astra_buf label = ASTRA_BUF_INIT, args = ASTRA_BUF_INIT;
	size_t i, nptr = 0, c;

	astra_buf_addf(g->out, "\t{ /* case %zu */\n", ci);
	for (i = 0; i < shape->nr; i++)
		emit_value(g, shape->items[i].name, shape->items[i].value);
	for (i = 0; i < p->scalars.nr; i++)
		if (!astra_assign_get(shape, p->scalars.items[i].name))
			emit_value(g, p->scalars.items[i].name, p->scalars.items[i].value);
	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *prm = &k->params[i];
		if (!prm->is_pointer && !astra_assign_get(shape, prm->name) && !astra_assign_get(&p->scalars, prm->name)) {
			astra_buf_release(&label);
			astra_buf_release(&args);
			return fail(g, "no value for scalar parameter `%s`: give it in shapes(...) or scalars(...)",
				    prm->name);
		}
	}

	if (types)
		for (i = 0; i < types->nr; i++)
			astra_buf_addf(&label, "%s%s=%s", label.len ? " " : "", types->items[i].name,
				       types->items[i].value);
	for (i = 0; i < shape->nr; i++)
		if (strncmp(shape->items[i].name, "astra_", 6)) /* names of captured shapes (agents/captured.h) */
			astra_buf_addf(&label, "%s%s=%s", label.len ? " " : "", shape->items[i].name,
				       shape->items[i].value);
	{
		/* Where the shape came from: astra_source="captured: 12 launches". */
		const char *src = astra_assign_get(shape, "astra_source");
		size_t n = src ? strlen(src) : 0;
		if (n >= 2 && src[0] == '"' && src[n - 1] == '"')
			astra_buf_addf(&label, " [%.*s]", (int)(n - 2), src + 1);
	}
	astra_buf_adds(g->out, "\t::astra_rt::Case astra_c;\n\tastra_c.label = ");
	add_c_string(g->out, label.buf);
	astra_buf_adds(g->out, ";\n");
	/* What a host launcher sees of the shape: the scalar arguments (harness-rt keeps the arithmetic ones). */
	for (i = 0; i < k->nr_params; i++)
		if (!k->params[i].is_pointer && k->params[i].name && *k->params[i].name)
			astra_buf_addf(g->out, "\tastra_c.dim(\"%s\", %s);\n", k->params[i].name, k->params[i].name);

	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *prm = &k->params[i];
		const struct astra_bufspec *bs;
		if (!prm->is_pointer) {
			astra_buf_addf(&args, ", %s", prm->name);
			continue;
		}
		bs = find_buffer(p, prm->name);
		if (!bs) {
			astra_buf_release(&label);
			astra_buf_release(&args);
			return fail(g, "pointer parameter `%s` has no size: add it to buffers(...)", prm->name);
		}
		astra_buf_addf(g->out, "\tastra_c.add<%s>(\"%s\", (long long)(%s), %s, %s);\n", prm->elem_type,
			       prm->name, bs->count, is_output(p, prm->name) ? "true" : "false",
			       prm->is_const ? "true" : "false");
		astra_buf_addf(&args, ", (%s%s *)astra_ptr[%zu]", prm->is_const ? "const " : "", prm->elem_type, nptr);
		nptr++;
	}
	/* Captured inputs (astra_data_<buffer>): the extra trial with real data reads them. */
	for (i = 0; i < k->nr_params; i++) {
		char *dn;
		if (!k->params[i].is_pointer)
			continue;
		dn = xasprintf("astra_data_%s", k->params[i].name);
		if (astra_assign_get(shape, dn))
			astra_buf_addf(g->out, "\tastra_c.data(\"%s\", %s);\n", k->params[i].name, dn);
		free(dn);
	}
	for (i = 0; i < p->nr_ranges; i++)
		astra_buf_addf(g->out, "\tastra_c.range(\"%s\", (double)(%s), (double)(%s));\n", p->ranges[i].name,
			       p->ranges[i].lo, p->ranges[i].hi);
	for (i = 0; i < p->nr_tolerances; i++)
		if (!p->tolerances[i].name)
			astra_buf_addf(g->out, "\tastra_c.tolerance(nullptr, %.17g, %.17g);\n", p->tolerances[i].rtol,
				       p->tolerances[i].atol);
	for (i = 0; i < p->nr_tolerances; i++)
		if (p->tolerances[i].name)
			astra_buf_addf(g->out, "\tastra_c.tolerance(\"%s\", %.17g, %.17g);\n", p->tolerances[i].name,
				       p->tolerances[i].rtol, p->tolerances[i].atol);
	if (p->flops)
		astra_buf_addf(g->out, "\tastra_c.flops = (double)(%s);\n", p->flops);
	if (p->bytes)
		astra_buf_addf(g->out, "\tastra_c.bytes = (double)(%s);\n", p->bytes);
	for (c = 0; c <= g->h->nr_cands; c++)
		astra_buf_addf(g->out, "\tastra_c.launch.push_back([=](void *const *astra_ptr, cudaStream_t astra_stream) "
			       "{ (void)astra_ptr; astra_launch_%zu(dim3(%s), dim3(%s), (size_t)(%s), astra_stream%s); });\n",
			       c, p->grid, p->block, p->shmem ? p->shmem : "0", args.buf);
	astra_buf_adds(g->out, "\tastra_p.add(astra_c);\n\t}\n");
	astra_buf_release(&label);
	astra_buf_release(&args);
	return 0;
}

static int emit_instantiation(struct gen *g, size_t ii, const struct astra_assign_set *types, size_t *ci)
{
	const struct astra_kernel *k = g->k;
	char *targs = template_args(g, types);
	size_t i;
	int rc = 0;

	astra_buf_addf(g->out, "#line 1 \"" ASTRA_HARNESS_CASES_FILE "\"\n");
	open_ns(g);
	astra_buf_addf(g->out, "namespace astra_inst_%zu {\n", ii);
	for (i = 0; types && i < k->nr_tmpl; i++) {
		const char *v = astra_assign_get(types, k->tmpl_params[i]);
		const char *kind = k->tmpl_kinds ? k->tmpl_kinds[i] : "typename";
		if (!v)
			break;
		if (!strcmp(kind, "typename") || !strcmp(kind, "class"))
			astra_buf_addf(g->out, "using %s = %s;\n", k->tmpl_params[i], v);
		else if (strpbrk(kind, "([")) /* a declarator type: float (*)(const float &) */
			astra_buf_addf(g->out, "using astra_kind_%zu = %s;\nconstexpr astra_kind_%zu %s = (%s);\n", i, kind,
				       i, k->tmpl_params[i], v);
		else
			astra_buf_addf(g->out, "constexpr %s %s = (%s);\n", kind, k->tmpl_params[i], v);
	}
	emit_launchers(g, targs);
	astra_buf_addf(g->out, "#line 1 \"" ASTRA_HARNESS_CASES_FILE "\"\n"
		       "static void astra_cases(::astra_rt::Program &astra_p)\n{\n");
	for (i = 0; i < g->p->nr_shapes && !rc; i++)
		rc = emit_case(g, (*ci)++, types, &g->p->shapes[i]);
	astra_buf_adds(g->out, "}\n} /* astra_inst */\n");
	close_ns(g);
	free(targs);
	return rc;
}

static int check_kernel(struct gen *g)
{
	const struct astra_kernel *k = g->k;
	size_t i;
	if (!k->text || k->end > g->h->src_len || k->start >= k->end)
		return fail(g, "internal: the kernel's byte range is outside its file");
	if (!g->p->nr_shapes)
		return fail(g, "no shapes(...) to test with");
	if (!g->p->grid || !g->p->block)
		return fail(g, "no launch(grid=..., block=...) to launch with");
	if (k->is_template && !g->p->nr_types)
		return fail(g, "a template kernel needs types(...) to instantiate it");
	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *prm = &k->params[i];
		if (!prm->name || !*prm->name)
			return fail(g, "parameter %zu has no name: the pragma cannot give it a value", i + 1);
		if (prm->is_pointer && (!prm->elem_type || strchr(prm->elem_type, '*')))
			return fail(g, "pointer parameter `%s`: pointers to pointers cannot be filled with test data",
				    prm->name);
	}
	for (i = 0; i < g->h->nr_cands; i++) {
		const char *n = g->h->cands[i].name;
		if (strpbrk(n, "\"\\\n"))
			return fail(g, "internal: candidate name `%s` cannot be a #line file name", n);
	}
	return 0;
}

int astra_harness_generate(const struct astra_harness *h, struct astra_buf *out, struct astra_buf *why)
{
	struct gen g;
	struct astra_buf q = ASTRA_BUF_INIT, ctx = ASTRA_BUF_INIT;
	size_t i, ci = 0, base;
	int rc;

	memset(&g, 0, sizeof(g));
	g.h = h;
	g.k = h->kernel;
	g.p = &h->kernel->pragma;
	g.out = out;
	g.why = why;
	astra_vec_init(&g.ns);
	if (check_kernel(&g) < 0) {
		astra_vec_clear(&g.ns);
		return -1;
	}
	/*
	 * The scope and the conditionals open at the kernel are those of the
	 * whole text before it: the prefix (a header included inside
	 * `#ifdef __CUDACC__` or a namespace) and the kernel's file.
	 */
	for (i = 0; i < h->nr_prefix; i++)
		astra_buf_add(&ctx, h->prefix[i].text, h->prefix[i].len);
	base = ctx.len;
	astra_buf_add(&ctx, h->src_text, h->src_len);
	g.open_braces = astra_screen_scope(ctx.buf, ctx.len, base + g.k->start, &g.ns);
	if (g.open_braces < 0) {
		astra_vec_clear(&g.ns);
		astra_buf_release(&ctx);
		return fail(&g, "the kernel is not at namespace scope");
	}
	for (i = 0; i < g.ns.nr; i++)
		if (*g.ns.v[i])
			astra_buf_addf(&q, "::%s", g.ns.v[i]);
	g.qual = astra_buf_detach(&q, NULL);

	astra_buf_addf(out, "/* Generated by astra-cc: the test program for kernel %s of ", g.k->name);
	add_comment_text(out, h->src_path);
	astra_buf_addf(out, ".\n * Reference: the original kernel below; candidates: %zu.  See doc/verify.md. */\n",
		       h->nr_cands);
	/*
	 * The runtime first: it does not depend on the kernel, and the
	 * user's text may define macros (`#define min(a, b) ...`, common in
	 * CUDA programs) that would break the standard headers it includes
	 * and its own code.  Everything after the user's text sees them, as
	 * the kernel does.
	 */
	astra_buf_adds(out, "#line 1 \"" ASTRA_HARNESS_RT_FILE "\"\n");
	astra_buf_adds(out, astra_harness_runtime);
	astra_buf_adds(out, "\n#define main astra_tu_main_\n");
	for (i = 0; i < h->nr_prefix; i++) {
		astra_buf_adds(out, "#line 1 ");
		add_c_string(out, h->prefix[i].path);
		astra_buf_addch(out, '\n');
		astra_buf_add(out, h->prefix[i].text, h->prefix[i].len);
		if (h->prefix[i].len && h->prefix[i].text[h->prefix[i].len - 1] != '\n')
			astra_buf_addch(out, '\n');
	}
	astra_buf_adds(out, "#line 1 ");
	add_c_string(out, h->src_path);
	astra_buf_addch(out, '\n');
	astra_buf_add(out, h->src_text, g.k->end);
	astra_buf_addch(out, '\n');
	for (i = 0; i < (size_t)g.open_braces; i++)
		astra_buf_adds(out, "}");
	/* the #endif of an include guard (or of #ifdef __CUDACC__) around the kernel comes after it */
	for (i = astra_screen_open_conditionals(ctx.buf, ctx.len, base + g.k->end); i > 0; i--)
		astra_buf_adds(out, "\n#endif");
	astra_buf_release(&ctx);
	astra_buf_adds(out, "\n#undef main\n");

	for (i = 0; i < h->nr_cands; i++) {
		astra_buf_addf(out, "\n#line 1 \"" ASTRA_HARNESS_CASES_FILE "\"\n");
		open_ns(&g);
		astra_buf_addf(out, "namespace astra_cand_%zu {\n#line 1 ", i);
		add_c_string(out, h->cands[i].name);
		astra_buf_addch(out, '\n');
		astra_buf_adds(out, h->cands[i].text);
		astra_buf_adds(out, "\n}\n");
		close_ns(&g);
	}

	rc = 0;
	if (g.k->is_template) {
		for (i = 0; i < g.p->nr_types && !rc; i++)
			rc = emit_instantiation(&g, i, &g.p->types[i], &ci);
	} else {
		rc = emit_instantiation(&g, 0, NULL, &ci);
	}
	if (!rc) {
		size_t n = g.k->is_template ? g.p->nr_types : 1;
		astra_buf_addf(out, "#line 1 \"" ASTRA_HARNESS_CASES_FILE "\"\n"
			       "int main(int argc, char **argv)\n{\n\t::astra_rt::Program astra_p(%zu);\n",
			       h->nr_cands + 1);
		for (i = 0; i < n; i++)
			astra_buf_addf(out, "\t%s::astra_inst_%zu::astra_cases(astra_p);\n", g.qual, i);
		astra_buf_adds(out, "\treturn astra_p.main(argc, argv);\n}\n");
	}
	free(g.qual);
	astra_vec_clear(&g.ns);
	return rc;
}
