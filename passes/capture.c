/*
 * capture.c - a capture build's launchers (see capture.h).
 *
 * Separate from substitution because it is the other direction: a
 * substituted build changes which kernel a site launches, a capture build
 * changes nothing the program computes and only watches.  What they share
 * is reused through public interfaces: the site rewriting of rewrite.h (the
 * launchers here keep its calling convention) and the compile of
 * substitute.h (a workspace, #line fidelity, dependency files), which takes
 * this module's edits through astra_subst_opts.edit_main.
 */
#include "autoconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/arch.h"
#include "lib/buf.h"
#include "lib/config.h"
#include "lib/log.h"
#include "lib/toolmemo.h"
#include "front/key.h"
#include "cache/capture.h"
#include "cache/store.h"
#include "passes/capture.h"
#include "passes/pipeline.h"
#include "passes/rewrite.h"

static void add_c_string(struct astra_buf *b, const char *s)
{
	astra_buf_addch(b, '"');
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			astra_buf_addch(b, '\\');
		if (*s == '\n')
			astra_buf_adds(b, "\\n");
		else
			astra_buf_addch(b, *s);
	}
	astra_buf_addch(b, '"');
}

static int tok_is(const struct astra_token *t, const char *s)
{
	return t->kind == ASTRA_TOK_PUNCT && !strcmp(t->text, s);
}

/* "template <typename T, int N = 4>" from the kernel's tokens, or NULL. */
static char *template_head(const struct astra_kernel *k)
{
	size_t i = 0;
	int depth = 0, paren = 0;
	while (i < k->nr_tokens && k->tokens[i].kind == ASTRA_TOK_COMMENT)
		i++;
	if (i + 1 >= k->nr_tokens || strcmp(k->tokens[i].text, "template") || !tok_is(&k->tokens[i + 1], "<"))
		return NULL;
	for (i += 1; i < k->nr_tokens; i++) {
		const struct astra_token *t = &k->tokens[i];
		if (t->kind != ASTRA_TOK_PUNCT)
			continue;
		if (tok_is(t, "(") || tok_is(t, "[") || tok_is(t, "{"))
			paren++;
		else if (tok_is(t, ")") || tok_is(t, "]") || tok_is(t, "}"))
			paren--;
		else if (paren)
			continue;
		else if (tok_is(t, "<"))
			depth++;
		else if (tok_is(t, ">"))
			depth--;
		else if (tok_is(t, ">>"))
			depth -= 2;
		if (!paren && depth <= 0 && (tok_is(t, ">") || tok_is(t, ">>")))
			return depth == 0 ? xstrndup(k->text, t->off + strlen(t->text)) : NULL;
	}
	return NULL;
}

static int is_type_kind(const char *kind)
{
	return !kind || !strcmp(kind, "typename") || !strcmp(kind, "class");
}

/* The parameter's name in the launcher (unnamed ones get one). */
static char *param_name(const struct astra_param *p, size_t i)
{
	return p->name && *p->name ? xstrdup(p->name) : xasprintf("__astra_p%zu", i);
}

int astra_capture_launcher(const struct astra_kernel *k, const struct astra_capture_target *targets, size_t nr,
			   const struct astra_capture_limits *lim, struct astra_buf *out, struct astra_buf *why)
{
	struct astra_buf b = ASTRA_BUF_INIT, decl = ASTRA_BUF_INIT, fwd = ASTRA_BUF_INIT, targs = ASTRA_BUF_INIT;
	char *head = NULL, *lname = astra_rewrite_launcher_name(k->name);
	const char *n = k->name;
	size_t i;
	int ret = -1;

	if (!nr) {
		astra_buf_adds(why, "no target architecture to record for");
		goto out;
	}
	if (k->is_extern_c == 2) {
		astra_buf_adds(why, "the kernel is inside an extern \"C\" { } block");
		goto out;
	}
	if (k->is_template) {
		if (!(head = template_head(k))) {
			astra_buf_adds(why, "its template head cannot be found");
			goto out;
		}
		for (i = 0; i < k->nr_tmpl; i++) {
			const char *kind = k->tmpl_kinds ? k->tmpl_kinds[i] : NULL;
			if (kind && (strstr(kind, "...") || strstr(kind, "template"))) {
				astra_buf_addf(why, "template parameter %s is a pack or a template", k->tmpl_params[i]);
				goto out;
			}
			astra_buf_addf(&targs, "%s%s", i ? ", " : "<", k->tmpl_params[i]);
		}
		if (targs.len)
			astra_buf_addch(&targs, '>');
	}
	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *p = &k->params[i];
		char *pn = param_name(p, i);
		if (!p->type || strpbrk(p->type, "[(")) {
			astra_buf_addf(why, "the type of parameter %s cannot be repeated in a launcher", pn);
			free(pn);
			goto out;
		}
		astra_buf_addf(&decl, "%s%s %s", i ? ", " : "", p->type, pn);
		astra_buf_addf(&fwd, "%s%s", i ? ", " : "", pn);
		free(pn);
	}

	/* The parameters and targets, for the records. */
	astra_buf_addf(&b, "namespace {\nstatic const ::__astra_cap::Param __astra_cparams_%s[] = {\n", n);
	for (i = 0; i < k->nr_params; i++) {
		const struct astra_param *p = &k->params[i];
		char *pn = param_name(p, i);
		astra_buf_adds(&b, "\t{ ");
		add_c_string(&b, pn);
		astra_buf_addf(&b, ", %d, ", p->is_pointer ? 1 : 0);
		add_c_string(&b, p->type);
		astra_buf_adds(&b, ", ");
		add_c_string(&b, p->is_pointer && p->elem_type ? p->elem_type : "");
		astra_buf_adds(&b, " },\n");
		free(pn);
	}
	if (!k->nr_params)
		astra_buf_adds(&b, "\t{ \"\", 0, \"\", \"\" },\n");
	astra_buf_addf(&b, "};\nstatic const ::__astra_cap::Target __astra_ctargets_%s[] = {\n", n);
	for (i = 0; i < nr; i++) {
		astra_buf_adds(&b, "\t{ ");
		add_c_string(&b, targets[i].key);
		astra_buf_addf(&b, ", %d, ", targets[i].cc);
		add_c_string(&b, targets[i].prefix);
		astra_buf_addf(&b, ", %d },\n", targets[i].device_only);
	}
	astra_buf_addf(&b, "};\nstatic ::__astra_cap::Kernel &__astra_crec_%s()\n{\n"
		       "\tstatic ::__astra_cap::Kernel __astra_k(", n);
	add_c_string(&b, n);
	astra_buf_addf(&b, ", __astra_cparams_%s, %zu, __astra_ctargets_%s, %zu, ::__astra_cap::Limits{ %d, %d, %lldLL });\n"
		       "\treturn __astra_k;\n}\n", n, k->nr_params, n, nr, lim->max_shapes, lim->data ? 1 : 0,
		       lim->data_max);

	/* The pending configuration, as rewrite.h's launchers take it from a rewritten site. */
	astra_buf_addf(&b, "struct __astra_pending_%s {\n"
		       "\tdim3 __astra_grid, __astra_block;\n"
		       "\tsize_t __astra_shmem;\n"
		       "\tcudaStream_t __astra_stream;\n"
		       "\t__astra_pending_%s *__astra_prev;\n"
		       "\tint __astra_used;\n"
		       "\tstatic __astra_pending_%s *&__astra_top()\n\t{\n"
		       "\t\tstatic thread_local __astra_pending_%s *__astra_t = 0;\n"
		       "\t\treturn __astra_t;\n\t}\n"
		       "\t__astra_pending_%s(dim3 __astra_g, dim3 __astra_b, size_t __astra_s, cudaStream_t __astra_st)\n"
		       "\t\t: __astra_grid(__astra_g), __astra_block(__astra_b), __astra_shmem(__astra_s),\n"
		       "\t\t  __astra_stream(__astra_st), __astra_prev(__astra_top()), __astra_used(0)\n"
		       "\t{\n\t\t__astra_top() = this;\n\t}\n"
		       "\t~__astra_pending_%s()\n\t{\n\t\tif (__astra_top() == this)\n\t\t\t__astra_top() = __astra_prev;\n\t}\n"
		       "\t__astra_pending_%s(const __astra_pending_%s &) = delete;\n"
		       "\t__astra_pending_%s &operator=(const __astra_pending_%s &) = delete;\n"
		       "\texplicit operator bool() const\n\t{\n\t\treturn false;\n\t}\n"
		       "\tstatic __astra_pending_%s *__astra_take()\n\t{\n"
		       "\t\t__astra_pending_%s *__astra_p = __astra_top();\n"
		       "\t\twhile (__astra_p && __astra_p->__astra_used)\n"
		       "\t\t\t__astra_p = __astra_p->__astra_prev;\n"
		       "\t\tif (__astra_p)\n\t\t\t__astra_p->__astra_used = 1;\n"
		       "\t\treturn __astra_p;\n\t}\n"
		       "};\n}\n",
		       n, n, n, n, n, n, n, n, n, n, n, n);

	/* The launcher. */
	astra_buf_addf(&b, "%s%sstatic inline void %s(%s)\n{\n", head ? head : "", head ? "\n" : "", lname, decl.buf);
	astra_buf_addf(&b, "\t__astra_pending_%s *__astra_p = __astra_pending_%s::__astra_take();\n"
		       "\tif (!__astra_p)\n\t\treturn;\n"
		       "\tif (::__astra_cap::enabled()) {\n"
		       "\t\tstatic const ::__astra_cap::Inst __astra_i = ::__astra_cap::Inst()", n, n);
	for (i = 0; k->is_template && i < k->nr_tmpl; i++) {
		const char *t = k->tmpl_params[i];
		if (is_type_kind(k->tmpl_kinds ? k->tmpl_kinds[i] : NULL))
			astra_buf_addf(&b, "\n\t\t\t.arg(\"%s\", ::__astra_cap::type_name<%s>())", t, t);
		else
			astra_buf_addf(&b, "\n\t\t\t.arg(\"%s\", ::__astra_cap::value_text(%s))", t, t);
	}
	astra_buf_addf(&b, ";\n\t\t::__astra_cap::Launch __astra_l(__astra_crec_%s(), __astra_p->__astra_grid, "
		       "__astra_p->__astra_block,\n\t\t\t\t\t       __astra_p->__astra_shmem, __astra_p->__astra_stream, "
		       "__astra_i);\n", n);
	for (i = 0; i < k->nr_params; i++) {
		char *pn = param_name(&k->params[i], i);
		astra_buf_addf(&b, "\t\t__astra_l.%s(%zu, %s);\n", k->params[i].is_pointer ? "pointer" : "scalar", i, pn);
		free(pn);
	}
	astra_buf_addf(&b, "\t\t__astra_l.before();\n"
		       "\t\t%s%s<<<__astra_p->__astra_grid, __astra_p->__astra_block, __astra_p->__astra_shmem, "
		       "__astra_p->__astra_stream>>>(%s);\n"
		       "\t\t__astra_l.after();\n\t\treturn;\n\t}\n"
		       "\t%s%s<<<__astra_p->__astra_grid, __astra_p->__astra_block, __astra_p->__astra_shmem, "
		       "__astra_p->__astra_stream>>>(%s);\n}\n",
		       n, targs.buf, fwd.buf, n, targs.buf, fwd.buf);
	astra_buf_add(out, b.buf, b.len);
	ret = 0;
out:
	astra_buf_release(&b);
	astra_buf_release(&decl);
	astra_buf_release(&fwd);
	astra_buf_release(&targs);
	free(head);
	free(lname);
	return ret;
}

/* ------------------------------------------------------------ the compile */

/* One kernel to capture. */
struct capk {
	const struct astra_kernel *k;
	struct astra_capture_target *targets;
	size_t nr;
};

struct job {
	struct capk *v;
	size_t nr;
	struct astra_capture_limits lim;
	int captured;           /* kernels given a launcher */
};

/* The edits: the recorder at the top, a launcher after each kernel, the sites. */
static int edit_main(struct astra_edits *e, const struct astra_tu *tu, void *data)
{
	struct job *j = data;
	size_t i;
	for (i = 0; i < j->nr; i++) {
		const struct capk *c = &j->v[i];
		struct astra_edits sites = ASTRA_EDITS_INIT;
		struct astra_buf text = ASTRA_BUF_INIT, why = ASTRA_BUF_INIT;
		struct astra_subst s;
		int n;
		memset(&s, 0, sizeof(s));
		s.kernel = c->k;
		n = astra_rewrite_launches(&sites, tu, &s);
		if (n <= 0) {
			astra_log(ASTRA_LOG_INFO, "%s: capture: no launch site of %s in the file; its launches are not recorded",
				  tu->path, c->k->name);
		} else if (astra_capture_launcher(c->k, c->targets, c->nr, &j->lim, &text, &why) < 0) {
			warning("%s:%u: capture: kernel %s cannot be captured: %s", c->k->file, c->k->line, c->k->name,
				why.buf);
		} else {
			size_t k;
			astra_edits_add(e, c->k->end, c->k->end, astra_buf_detach(&text, NULL), 1);
			for (k = 0; k < sites.nr; k++) {
				astra_edits_add(e, sites.v[k].start, sites.v[k].end, sites.v[k].text, sites.v[k].framed);
				sites.v[k].text = NULL;
			}
			astra_log(ASTRA_LOG_INFO, "%s: capture: %s is recorded at %d launch site%s", tu->path, c->k->name, n,
				  n == 1 ? "" : "s");
			j->captured++;
		}
		astra_edits_release(&sites);
		astra_buf_release(&text);
		astra_buf_release(&why);
	}
	if (!j->captured)
		return error("%s: capture: no kernel to capture", tu->path);
	{
		struct astra_buf rt = ASTRA_BUF_INIT;
		astra_buf_adds(&rt, "/* astra-cc capture build: the recorder (doc/capture.md) */\n");
		astra_buf_adds(&rt, astra_capture_runtime);
		astra_edits_add(e, 0, 0, astra_buf_detach(&rt, NULL), 1);
	}
	return 0;
}

/*
 * A command without a target option compiles for nvcc's default target,
 * whose SASS runs where it was built for and whose PTX the driver compiles
 * for newer GPUs: the program may run on any GPU this nvcc knows.  Its
 * launchers get one target per SASS architecture of `nvcc --list-gpu-code`
 * (remembered like nvcc's version), each keyed as a warmup on such a GPU
 * keys the command, and the running program records for the one its
 * device is (struct astra_capture_target.device_only).
 */
static void default_targets(const char *nvcc, struct astra_vec *archs)
{
	struct astra_buf b = ASTRA_BUF_INIT;
	const char *dir = astra_config_str(ASTRA_CFG_DIR);
	char *memo = dir && *dir ? xasprintf("%s/nvcc-gpu-code", dir) : NULL;
	char *argv[3], *line, *save = NULL;
	argv[0] = (char *)nvcc;
	argv[1] = "--list-gpu-code";
	argv[2] = NULL;
	if (astra_toolmemo_run(argv, ASTRA_TOOLMEMO_STDOUT, NULL, memo, &b) == 0)
		for (line = strtok_r(b.buf, " \t\r\n", &save); line; line = strtok_r(NULL, " \t\r\n", &save))
			if (astra_arch_parse(line, 0, NULL) == ASTRA_ARCH_SM && astra_vec_find(archs, line) < 0)
				astra_vec_push(archs, line);
	free(memo);
	astra_buf_release(&b);
}

int astra_capture_compile(struct astra_invocation *inv, const struct astra_tu *tu,
			  const struct astra_subst_opts *opts)
{
	struct astra_buf version = ASTRA_BUF_INIT;
	struct astra_vec archs = ASTRA_VEC_INIT;
	struct astra_cache *cache = NULL;
	struct astra_subst_opts so;
	struct job j;
	size_t i, a, nr_named;
	int ret = -1;

	memset(&j, 0, sizeof(j));
	j.lim.max_shapes = (int)astra_config_int(ASTRA_CFG_CAPTURE_SHAPES);
	j.lim.data = astra_config_bool(ASTRA_CFG_CAPTURE_DATA);
	j.lim.data_max = astra_config_int(ASTRA_CFG_CAPTURE_DATA_MAX);
	if (j.lim.max_shapes < 1)
		j.lim.max_shapes = 1;
	if (astra_arch_targets(&inv->cl, &archs) < 0) {
		error("%s: the GPU targets cannot be known from the command line", inv->cl.inputs.v[0]);
		goto out;
	}
	if (astra_key_nvcc_version(inv->nvcc, astra_config_str(ASTRA_CFG_DIR), &version) < 0)
		goto out;
	/* nvcc's default target: every architecture this nvcc knows, after the named ones. */
	if ((i = (size_t)astra_vec_find(&archs, "default")) != (size_t)-1) {
		astra_vec_remove(&archs, i);
		nr_named = archs.nr;
		default_targets(inv->nvcc, &archs);
	} else {
		nr_named = archs.nr;
	}
	cache = astra_cache_open(NULL);
	j.v = xcalloc(tu->nr_kernels ? tu->nr_kernels : 1, sizeof(*j.v));
	for (i = 0; i < tu->nr_kernels; i++) {
		const struct astra_kernel *k = &tu->kernels[i];
		struct capk *c = &j.v[j.nr];
		if (k->bad_pragma || (k->pragma.flags & ASTRA_PRAGMA_OFF))
			continue;
		if (!astra_rewrite_in_main(tu, k)) {
			astra_log(ASTRA_LOG_INFO, "%s:%u: capture: kernel %s is defined in a header; its launches are not recorded",
				  k->file, k->line, k->name);
			continue;
		}
		c->k = k;
		c->targets = xcalloc(archs.nr ? archs.nr : 1, sizeof(*c->targets));
		for (a = 0; a < archs.nr; a++) {
			struct astra_key key;
			int cc = astra_arch_cc(archs.v[a]);
			if (!cc || astra_key_compute(tu, k, &inv->cl, archs.v[a], version.buf, &key, NULL) < 0)
				continue;
			c->targets[c->nr].key = xstrdup(key.hex);
			c->targets[c->nr].cc = cc;
			c->targets[c->nr].prefix = astra_capture_prefix(cache, key.hex, cc);
			c->targets[c->nr].device_only = a >= nr_named;
			c->nr++;
			/*
			 * A capture build still misses: the kernel waits for warmup, which reads the capture
			 * (once for nvcc's default target: warmup keys it for its own GPU).
			 */
			if (a <= nr_named)
				astra_pipeline_queue_for_warmup(cache, inv, k, key.hex, cc);
		}
		if (c->nr)
			j.nr++;
		else
			free(c->targets);
	}
	if (!j.nr) {
		astra_log(ASTRA_LOG_INFO, "%s: capture: no annotated kernel to capture", inv->cl.inputs.v[0]);
		goto out;
	}
	memset(&so, 0, sizeof(so));
	so.save_dir = opts ? opts->save_dir : NULL;
	so.edit_main = edit_main;
	so.edit_data = &j;
	ret = astra_subst_compile(inv, tu, NULL, 0, &so);
out:
	for (i = 0; i < j.nr; i++) {
		for (a = 0; a < j.v[i].nr; a++) {
			free((char *)j.v[i].targets[a].key);
			free((char *)j.v[i].targets[a].prefix);
		}
		free(j.v[i].targets);
	}
	free(j.v);
	astra_cache_close(cache);
	astra_buf_release(&version);
	astra_vec_clear(&archs);
	return ret;
}
